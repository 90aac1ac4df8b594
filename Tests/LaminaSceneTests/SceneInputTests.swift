import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaScene

@MainActor
private func parse(_ json: String, file: String = "input.json") throws -> Scene {
    try Scene.parse(Data(json.utf8), file: file, baseDirectory: sceneFuzzDirectory.appendingPathComponent("corpus").path)
}

@MainActor
private func sceneError(_ json: String) -> SceneError? {
    do { _ = try parse(json); return nil } catch let e as SceneError { return e } catch { return nil }
}

/// A scene whose root has one sublayer with `members` (JSON members, without braces).
private func oneLayer(_ members: String) -> String {
    #"{"version": 1, "size": [64, 64], "root": {"frame": [0, 0, 64, 64], "sublayers": [{"name": "probe", "# + members + "}]}}"
}

@MainActor
@Suite("Scene input: the JSON reader")
struct SceneJSONTests {
    @Test("every syntax error names the line and column", arguments: [
        ("{\"version\": 1,\n  \"size\": [10, 10],,\n}", "line 2, column 20", "expected a key"),
        ("{\"version\": 1, \"size\": [10, 10], \"root\": {\n", "line 2, column 1", "unexpected end of file"),
        ("", "line 1, column 1", "unexpected end of file: expected a value"),
        ("{\"a\": 1e999}", "line 1, column 7", "the number 1e999 is not representable"),
        ("{\"a\": -1e400}", "line 1, column 7", "the number -1e400 is not representable"),
        ("{\"a\": NaN}", "line 1, column 7", "unexpected character 'N'"),
        ("{\"a\": [1, 2,]}", "line 1, column 13", "unexpected character ']'"),
        ("{\"a\": \"x\ty\"}", "line 1, column 9", "control character"),
        ("{\"a\": \"\\q\"}", "line 1, column 9", "unknown escape"),
        ("{\"a\": 01}", "line 1, column 8", "expected ',' or '}'"),
        ("{\"a\": 1} {}", "line 1, column 10", "after the end of the JSON value"),
        ("{\"a\": \"\\ud800\"}", "line 1, column 14", "lone UTF-16 surrogate"),
        ("{\"a\": tru}", "line 1, column 7", "unknown word (expected 'true')"),
        ("[1, 2", "line 1, column 6", "unexpected end of file: the array opened at line 1, column 1 is not closed"),
    ])
    func syntaxErrors(text: String, location: String, problem: String) throws {
        let e = try #require(sceneError(text))
        #expect(e.file == "input.json" && e.path == "$")
        #expect(e.problem.contains("not valid JSON (\(location))"), "\(e)")
        #expect(e.problem.contains(problem), "\(e)")
    }

    @Test("a duplicate key is an error naming its path, line and column (not last-wins)")
    func duplicateKeys() throws {
        let e = try #require(sceneError(#"{"version": 1, "size": [10, 10], "root": {"opacity": 0.5,"# + "\n" + #"  "opacity": 1}}"#))
        #expect(e.path == "$.root.opacity")
        #expect(e.problem.contains("line 2, column 3") && e.problem.contains("duplicate key 'opacity'"), "\(e)")
    }

    @Test("strings: escapes and surrogate pairs decode; invalid UTF-8 is an error")
    func strings() throws {
        let s = try parse(oneLayer(#""backgroundColor": "red", "drawing": [{"text": "a\"\\\/\n\u00e9\ud83d\ude00", "at": [0, 0]}]"#))
        #expect(s.root.sublayers[0].name == "probe")
        // A UTF-8 byte order mark is skipped (columns count after it).
        #expect(try Scene.parse(Data([0xEF, 0xBB, 0xBF] + Array(oneLayer(#""opacity": 1"#).utf8)), file: "bom.json", baseDirectory: "/").root.sublayers.count == 1)
        #expect(sceneError("\u{FEFF}{,}")?.problem.contains("line 1, column 2") == true)
        var bytes = Array(oneLayer(#""backgroundColor": "red""#).utf8)
        bytes.insert(0xFF, at: bytes.firstIndex(of: UInt8(ascii: "p"))!)
        #expect {
            _ = try Scene.parse(Data(bytes), file: "input.json", baseDirectory: "/")
        } throws: { error in
            (error as? SceneError)?.problem.contains("not valid UTF-8") == true
        }
    }

    @Test("a chain of 10 000 sublayers parses and builds (no recursion per level)")
    func deepChain() throws {
        let depth = 10_000
        let text = #"{"version": 1, "size": [8, 8], "root": "# + String(repeating: #"{"frame": [0, 0, 8, 8], "sublayers": ["#, count: depth)
            + #"{"name": "leaf", "backgroundColor": "red"}"# + String(repeating: "]}", count: depth) + "}"
        let scene = try parse(text)
        var levels = 0
        var l: Layer = scene.root
        while let next = l.sublayers.first { l = next; levels += 1 }
        #expect(levels == depth && l.name == "leaf")
    }

    @Test("nesting beyond the documented limit (100 000 levels) is a clear error, not a stack overflow")
    func nestingLimit() throws {
        let n = JSONDocument.maximumDepth + 1
        let e = try #require(sceneError(String(repeating: "[", count: n) + String(repeating: "]", count: n)))
        #expect(e.problem.contains("line 1, column \(n)") && e.problem.contains("nesting deeper than 100000 levels"), "\(e)")
        // At the limit it reads (and frees) without recursion.
        let doc = try JSONDocument(Data((String(repeating: "[", count: n - 1) + String(repeating: "]", count: n - 1)).utf8), file: "x")
        #expect(doc.values.count == n - 1)
    }
}

@MainActor
@Suite("Scene input: limits")
struct SceneLimitTests {
    @Test("values beyond the limits are errors naming the file, the JSON path and the layer", arguments: [
        (#""frame": [0, 0, 1e19, 10]"#, "$.root.sublayers[0].frame[2]", "beyond the limit for sizes (1000000)"),
        (#""frame": [-1000001, 0, 10, 10]"#, "$.root.sublayers[0].frame[0]", "beyond the limit for coordinates (±1000000)"),
        (#""bounds": [0, 0, 10, 1e300]"#, "$.root.sublayers[0].bounds[3]", "beyond the limit for sizes"),
        (#""position": [1e300, 0]"#, "$.root.sublayers[0].position[0]", "beyond the limit for coordinates"),
        (#""anchorPoint": [1e300, 0]"#, "$.root.sublayers[0].anchorPoint[0]", "beyond the limit for anchor points (±1000)"),
        (#""anchorPointZ": -1e300"#, "$.root.sublayers[0].anchorPointZ", "beyond the limit for coordinates"),
        (#""zPosition": 1e300"#, "$.root.sublayers[0].zPosition", "beyond the limit for coordinates"),
        (#""contentsScale": 1e300"#, "$.root.sublayers[0].contentsScale", "beyond the limit for contentsScale (16)"),
        (#""contentsScale": 0"#, "$.root.sublayers[0].contentsScale", "must be positive"),
        (#""contentsScale": 1e-300"#, "$.root.sublayers[0].contentsScale", "1e-300 is below the limit for contentsScale (1/4096"),
        (#""borderWidth": 1e7"#, "$.root.sublayers[0].borderWidth", "beyond the limit for sizes"),
        (#""cornerRadius": 1e300"#, "$.root.sublayers[0].cornerRadius", "beyond the limit for sizes"),
        (#""contentsRect": [0, 0, 1e300, 1]"#, "$.root.sublayers[0].contentsRect[2]", "beyond the limit for unit rectangles"),
        (#""transform": [{"scale": 1e300}]"#, "$.root.sublayers[0].transform[0].scale", "beyond the limit for scale factors"),
        (#""transform": [{"scale": 1e6}, {"scale": 1e6}, {"scale": 1e6}]"#, "$.root.sublayers[0].transform[2]", "the combined transform has entries beyond the limit"),
        (#""transform": [{"rotate": 1e300}]"#, "$.root.sublayers[0].transform[0].rotate", "beyond the limit for angles"),
        (#""transform": [{"rotate": 1, "axis": [0, 0, 0]}]"#, "$.root.sublayers[0].transform[0].axis", "must not be zero"),
        (#""sublayerTransform": [{"perspective": 1e-300}]"#, "$.root.sublayers[0].sublayerTransform[0].perspective", "below the limit"),
        (#""transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1e300]"#, "$.root.sublayers[0].transform[15]", "beyond the limit for transform entries"),
        (#""drawing": [{"ellipse": [0, 0, 1e-300, 1e300], "fill": "red"}]"#, "$.root.sublayers[0].drawing[0].ellipse[3]", "beyond the limit for sizes"),
        (#""drawing": [{"text": "x", "in": [0, 0, 3e6, 20]}]"#, "$.root.sublayers[0].drawing[0].in[2]", "beyond the limit for sizes"),
        (#""drawing": [{"text": "x", "at": [0, 0], "font": {"size": 1e300}}]"#, "$.root.sublayers[0].drawing[0].font.size", "beyond the limit for font sizes (1000)"),
        (#""drawing": [{"path": "M 0 0 L 1e300 0", "stroke": "red"}]"#, "$.root.sublayers[0].drawing[0].path", "beyond the limit for coordinates"),
        (#""drawing": [{"rect": [0, 0, 9, 9], "stroke": "red", "dash": [0.01, 0.01]}]"#, "$.root.sublayers[0].drawing[0].dash", "must be at least 0.5 pt long in total"),
        (#""drawing": [{"rect": [0, 0, 9, 9], "stroke": "red", "lineWidth": 100, "dash": [10, 10]}]"#, "$.root.sublayers[0].drawing[0].dash", "must be at least 50.0 pt long in total"),
        (#""drawing": [{"rect": [0, 0, 9, 9], "stroke": "red", "lineWidth": 1e300}]"#, "$.root.sublayers[0].drawing[0].lineWidth", "beyond the limit for sizes"),
        (#""drawing": [{"roundedRect": [0, 0, 9, 9], "radius": 1e300, "fill": "red"}]"#, "$.root.sublayers[0].drawing[0].radius", "beyond the limit for sizes"),
        (#""drawing": [{"rect": [0, 0, 9, 9], "radialGradient": {"center": [0, 0], "radius": 1e300, "colors": ["red", "blue"]}}]"#,
         "$.root.sublayers[0].drawing[0].radialGradient.radius", "beyond the limit for sizes"),
    ])
    func beyondLimits(members: String, path: String, problem: String) throws {
        let e = try #require(sceneError(oneLayer(members)), "should not parse: \(members)")
        #expect(e.file == "input.json" && e.path == path, "\(e)")
        #expect(e.layer == "probe", "\(e)")
        #expect(e.problem.contains(problem), "\(e)")
        #expect(e.description.hasPrefix("input.json: \(path): layer 'probe': "), "\(e)")
    }

    @Test("devices, pipes and directories are refused as scene files and images, with a clear error")
    func specialFiles() throws {
        #expect(throws: SceneError(file: "/dev/zero", path: "$", problem: "not a regular file (a directory, device or pipe)")) {
            _ = try Scene.load(contentsOf: "/dev/zero")
        }
        #expect(throws: SceneError(file: "/tmp", path: "$", problem: "not a regular file (a directory, device or pipe)")) {
            _ = try Scene.load(contentsOf: "/tmp")
        }
        let e = try #require(sceneError(oneLayer(#""contents": "/dev/zero""#)))
        #expect(e.path == "$.root.sublayers[0].contents" && e.problem.contains("not a regular file"), "\(e)")
    }

    @Test("the scene's own scale and size keep the limits")
    func topLevel() throws {
        #expect(sceneError(#"{"version": 1, "size": [10, 10], "scale": 1e300, "root": {}}"#)?.path == "$.scale")
        #expect(sceneError(#"{"version": 1, "size": [1e300, 10], "root": {}}"#)?.path == "$.size[0]")
    }

    @Test("a text longer than the limit, and too many drawing steps or path commands, are errors")
    func workLimits() throws {
        let long = String(repeating: "a", count: SceneLimits.maximumTextLength + 1)
        let text = try #require(sceneError(oneLayer(#""drawing": [{"text": ""# + long + #"", "in": [0, 0, 64, 64]}]"#)))
        #expect(text.path == "$.root.sublayers[0].drawing[0].text" && text.problem.contains("10001 characters is beyond the limit"), "\(text)")
        let steps = Array(repeating: #"{"rect": [0, 0, 1, 1], "fill": "red"}"#, count: SceneLimits.maximumDrawingSteps + 1).joined(separator: ",")
        let many = try #require(sceneError(oneLayer(#""drawing": ["# + steps + "]")))
        #expect(many.path == "$.root.sublayers[0].drawing" && many.problem.contains("10001 drawing steps"), "\(many)")
        let path = "M 0 0 " + String(repeating: "L 1 1 ", count: SceneLimits.maximumPathCommands)
        let complex = try #require(sceneError(oneLayer(#""drawing": [{"path": ""# + path + #"", "fill": "red"}]"#)))
        #expect(complex.problem.contains("more than 100000 path commands"), "\(complex)")
    }

    @Test("a scene that fails its checks makes no layer: nothing is left queued for the next commit")
    func failedParseLeavesNothing() throws {
        try Transaction.flush()
        #expect(!Transaction.needsCommit)
        let e = sceneError(#"{"version": 1, "size": [64, 64], "root": {"frame": [0, 0, 64, 64], "sublayers": [{"frame": [0, 0, 9, 9], "drawing": [{"rect": [0, 0, 9, 9], "fill": "red"}]}, {"opacity": 7}]}}"#)
        #expect(e?.path == "$.root.sublayers[1].opacity")
        #expect(!Transaction.needsCommit)
    }
}

@MainActor
@Suite("Scene input: render-time checks")
struct SceneRenderLimitTests {
    @Test("a drawn layer whose backing store is beyond the GPU is an error naming the file, the layer's path and its name")
    func backingStoreTooLarge() throws {
        let scene = try parse(oneLayer(#""bounds": [0, 0, 40000, 10], "drawing": [{"rect": [0, 0, 9, 9], "fill": "red"}]"#), file: "big.json")
        let device = try GPUDevice()
        defer { device.close() }
        #expect {
            _ = try scene.render(device: device)
        } throws: { error in
            guard let e = error as? SceneError else { return false }
            return e.file == "big.json" && e.path == "$.root.sublayers[0]" && e.layer == "probe"
                && e.problem.contains("40000×10 px") && e.problem.contains("the limit is \(min(device.capabilities.maxTextureSize, Bitmap.maximumSide)) px a side")
        }
        // Nothing was queued: the next scene renders.
        let ok = try parse(oneLayer(#""frame": [0, 0, 8, 8], "backgroundColor": "red""#))
        let image = try ok.render(device: device).image
        #expect(image[2, 2] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
    }

    @Test("a target beyond the GPU is an error naming the file and the limit, with the sizes as given (1e308 stays 1e308)")
    func targetTooLarge() throws {
        let scene = try parse(oneLayer(#""backgroundColor": "red""#), file: "t.json")
        let device = try GPUDevice()
        defer { device.close() }
        #expect {
            _ = try scene.render(device: device, size: Size(width: 1e308, height: 10), scale: 1)
        } throws: { error in
            guard let e = error as? SceneError else { return false }
            return e.file == "t.json" && e.path == "$.size" && e.problem.contains("1e+308×10.0 pt")
                && e.problem.contains("at most \(device.capabilities.maxRenderTargetSize) px a side")
        }
        #expect(throws: SceneError.self) { _ = try scene.render(device: device, scale: .infinity) }
        // Below PixelScale (a --scale of 1e-5): the scene's error, not the target's.
        #expect { _ = try scene.render(device: device, scale: 1e-5) } throws: { error in
            (error as? SceneError)?.path == "$.scale" && (error as? SceneError)?.problem.contains("at least 1/4096") == true
        }
    }

    @Test("a tree deeper than a scene may be is an error naming the file and the layer; one at the limit renders")
    func renderDepth() throws {
        func chain(_ n: Int) -> String {
            #"{"version": 1, "size": [8, 8], "root": "# + String(repeating: #"{"frame": [0, 0, 8, 8], "sublayers": ["#, count: n)
                + #"{"name": "leaf", "frame": [0, 0, 8, 8], "backgroundColor": "red"}"# + String(repeating: "]}", count: n) + "}"
        }
        let device = try GPUDevice()
        defer { device.close() }
        let limit = SceneLimits.maximumRenderDepth
        let atLimit = try parse(chain(limit)).render(device: device).image
        #expect(atLimit[4, 4] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        #expect {
            _ = try parse(chain(limit + 1), file: "deep.json").render(device: device)
        } throws: { error in
            guard let e = error as? SceneError else { return false }
            return e.file == "deep.json" && e.layer == "leaf" && e.path.hasPrefix("$.root.sublayers[0]") && e.path.contains(" steps)…")
                && e.problem.contains("more than \(limit) levels deep")
        }
    }

    @Test("the drawn layers' backing stores together keep the pixel budget")
    func pixelBudget() throws {
        let layers = (0..<4).map { #"{"name": "l\#($0)", "bounds": [0, 0, 100, 100], "drawing": [{"rect": [0, 0, 9, 9], "fill": "red"}]}"# }
        let scene = try parse(#"{"version": 1, "size": [64, 64], "root": {"sublayers": ["# + layers.joined(separator: ",") + "]}}")
        let device = try GPUDevice()
        defer { device.close() }
        #expect {
            _ = try scene.render(device: device, scale: 1, maximumBackingStorePixels: 35_000)
        } throws: { error in
            guard let e = error as? SceneError else { return false }
            return e.layer != nil && e.problem.contains("more than 35000 backing-store pixels")
        }
        _ = try scene.render(device: device, scale: 1, maximumBackingStorePixels: 40_000)
    }
}

@MainActor
@Suite("Scene input: each fuzzer reproducer gives its clear error, or renders")
struct SceneReproducerTests {
    struct Expectation: Sendable, CustomStringConvertible {
        var file: String, path: String, layer: String, message: String
        var description: String { file }
    }

    nonisolated static let expectations: [Expectation] = {
        let list = sceneFuzzDirectory.appendingPathComponent("reproducers/expected.tsv")
        let text = (try? String(contentsOf: list, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            let f = $0.split(separator: "\t").map(String.init)
            return Expectation(file: f[0], path: f[1], layer: f[2], message: f[3])
        }
    }()

    @Test("the list covers every reproducer file")
    func listComplete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: sceneFuzzDirectory.appendingPathComponent("reproducers").path)
            .filter { $0.hasSuffix(".json") }
        #expect(Set(files) == Set(SceneReproducerTests.expectations.map(\.file)))
        #expect(files.count >= 16)
    }

    @Test("each reproducer gives its clear error, or renders", arguments: SceneReproducerTests.expectations)
    func reproducer(_ x: Expectation) throws {
        let path = sceneFuzzDirectory.appendingPathComponent("reproducers").appendingPathComponent(x.file).path
        do {
            let scene = try Scene.load(contentsOf: path)
            switch x.path {
            case "build": break
            case "render":
                let device = try GPUDevice()
                defer { device.close() }
                let image = try scene.render(device: device).image
                #expect(image.width == Int(scene.size.width * scene.scale) && image.height == Int(scene.size.height * scene.scale))
            default: Issue.record("\(x.file) should fail at \(x.path): \(x.message)")
            }
        } catch let e as SceneError {
            #expect(e.file == path && e.path == x.path, "\(e)")
            #expect(e.layer == (x.layer == "-" ? nil : x.layer), "\(e)")
            #expect(e.problem.contains(x.message), "\(e)")
        }
    }
}

@MainActor
@Suite("Scene files: layer effects")
struct SceneEffectInputTests {
    @Test("bad effect values are errors naming the JSON path and the layer", arguments: [
        (#""compositingFilter": "burn""#, "$.root.sublayers[0].compositingFilter", "expected one of: multiply, screen, overlay"),
        (#""shadowRadius": -1"#, "$.root.sublayers[0].shadowRadius", "not be negative"),
        (#""shadowOpacity": 2"#, "$.root.sublayers[0].shadowOpacity", "0"),
        (#""shadowPath": {"circle": [0, 0, 4, 4]}"#, "$.root.sublayers[0].shadowPath.circle", "unknown property 'circle'"),
        (#""backgroundFilters": [{"type": "sepia"}]"#, "$.root.sublayers[0].backgroundFilters[0]", "gaussianBlur"),
        (#""colors": ["red"]"#, "$.root.sublayers[0].colors", "belongs to a layer of type gradientLayer"),
        (#""type": "shapeLayer", "path": "M 0 0 X 3""#, "$.root.sublayers[0].path", "unknown path command 'X'"),
        (#""type": "gradientLayer", "colors": ["red", "blue"], "locations": [0.5]"#, "$.root.sublayers[0].locations", "one entry per colour"),
        (#""type": "gradientLayer", "gradientType": "spiral""#, "$.root.sublayers[0].gradientType", "axial, radial, conic"),
        (#""type": "replicatorLayer", "instanceCount": 1e9"#, "$.root.sublayers[0].instanceCount", "0"),
        (#""type": "transformLayer", "mask": {"frame": [0, 0, 4, 4]}"#, "$.root.sublayers[0].mask", "no mask"),
        (#""mask": {"frame": [0, 0, 4, 4], "opacity": "x"}"#, "$.root.sublayers[0].mask.opacity", "expected a number"),
        (#""maskedCorners": ["topLeft"]"#, "$.root.sublayers[0].maskedCorners[0]", "expected one of: minXMinY, maxXMinY, minXMaxY, maxXMaxY"),
        (#""maskedCorners": "minXMinY""#, "$.root.sublayers[0].maskedCorners", "expected an array"),
        (#""cornerCurve": "squircle""#, "$.root.sublayers[0].cornerCurve", "expected one of: circular, continuous"),
    ])
    func malformed(members: String, path: String, problem: String) throws {
        let e = try #require(sceneError(oneLayer(members)), "should not parse: \(members)")
        #expect(e.path == path, "\(e)")
        #expect(e.problem.contains(problem), "\(e)")
    }

    @Test("effect keys build the layers they name: shadow, mask, blend mode, backdrop blur, shape, gradient and replicator layers")
    func builds() throws {
        let json = #"""
        {"version": 1, "size": [64, 64], "root": {"frame": [0, 0, 64, 64], "sublayers": [
          {"name": "a", "frame": [0, 0, 10, 10], "shadowOpacity": 0.5, "shadowRadius": 2, "shadowOffset": [1, 2], "shadowColor": "red",
           "shadowPath": {"roundedRect": [0, 0, 10, 10], "radius": 3}, "compositingFilter": "screen",
           "backgroundFilters": [{"type": "gaussianBlur", "radius": 4}], "mask": {"frame": [0, 0, 5, 5], "backgroundColor": "black"}},
          {"type": "shapeLayer", "path": {"ellipse": [0, 0, 8, 8]}, "fillColor": null, "strokeColor": "blue", "strokeEnd": 0.5},
          {"type": "gradientLayer", "gradientType": "radial", "colors": ["red", "blue"], "locations": [0, 1], "startPoint": [0.5, 0.5]},
          {"type": "replicatorLayer", "instanceCount": 3, "instanceTransform": [{"translate": [5, 0]}], "instanceAlphaOffset": -0.2},
          {"cornerRadius": 6, "maskedCorners": ["maxXMinY", "minXMaxY"], "cornerCurve": "continuous"},
          {"cornerRadius": 6, "maskedCorners": []}
        ]}}
        """#
        let scene = try Scene.parse(Data(json.utf8), file: "fx.json", baseDirectory: "/")
        let subs = scene.root.sublayers
        let a = subs[0]
        #expect(a.shadowOpacity == 0.5 && a.shadowRadius == 2 && a.shadowOffset == Size(width: 1, height: 2) && a.shadowColor == .red)
        #expect(a.shadowPath?.roundedRectShape?.cornerRadius == 3 && a.compositingFilter == .screen)
        #expect(a.backgroundFilters == [.gaussianBlur(radius: 4)] && a.mask?.bounds.size == Size(width: 5, height: 5))
        #expect(a.mask?.superlayer == nil && a.mask?.maskOwner === a)
        #expect(subs[4].maskedCorners == [.layerMaxXMinYCorner, .layerMinXMaxYCorner] && subs[4].cornerCurve == .continuous)
        #expect(subs[5].maskedCorners == [] && subs[5].cornerCurve == .circular && subs[3].maskedCorners == .all)
        let s = try #require(subs[1] as? ShapeLayer)
        #expect(s.fillColor == nil && s.strokeColor == .blue && s.strokeEnd == 0.5 && s.path == Path(ellipseIn: Rect(x: 0, y: 0, width: 8, height: 8)))
        let g = try #require(subs[2] as? GradientLayer)
        #expect(g.type == .radial && g.colors == [.red, .blue] && g.locations == [0, 1])
        let r = try #require(subs[3] as? ReplicatorLayer)
        #expect(r.instanceCount == 3 && r.instanceTransform == Transform3D(translationX: 5, y: 0) && r.instanceAlphaOffset == -0.2)
    }
}
