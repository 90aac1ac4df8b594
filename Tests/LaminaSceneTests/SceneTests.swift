import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaScene

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@MainActor
private func parse(_ json: String, file: String = "test.json") throws -> Scene {
    try Scene.parse(Data(json.utf8), file: file, baseDirectory: repositoryRoot.appendingPathComponent("Tests/Reftests").path)
}

/// The error a scene text raises (or nil).
@MainActor
private func sceneError(_ json: String) -> SceneError? {
    do { _ = try parse(json); return nil } catch let e as SceneError { return e } catch { return nil }
}

@MainActor
@Suite("Scene files")
struct SceneFileTests {
    @Test("a scene builds the layer tree it describes")
    func builds() throws {
        let s = try parse("""
        { "version": 1, "size": [120, 80], "scale": 2, "background": "#ff000080",
          "root": { "frame": [0, 0, 120, 80], "sublayers": [
            { "type": "transformLayer", "name": "space", "sublayers": [ { "name": "card", "bounds": [0, 0, 10, 20], "position": [5, 6],
              "anchorPoint": [0, 1], "zPosition": 3, "opacity": 0.25, "cornerRadius": 4, "borderWidth": 1, "borderColor": [0, 0, 1],
              "masksToBounds": true, "doubleSided": false, "contentsGravity": "topLeft", "contentsScale": 2,
              "minificationFilter": "nearest", "transform": [{ "translate": [1, 2] }, { "scale": 2 }] } ] } ] } }
        """)
        #expect(s.size == Size(width: 120, height: 80) && s.scale == 2)
        #expect(s.background.premultipliedPixel == RGBAPixel(r: 128, g: 0, b: 0, a: 128))
        let space = try #require(s.root.sublayers.first)
        #expect(space is TransformLayer && space.name == "space")
        let card = try #require(space.sublayers.first)
        #expect(card.bounds == Rect(x: 0, y: 0, width: 10, height: 20) && card.position == Point(x: 5, y: 6))
        #expect(card.anchorPoint == Point(x: 0, y: 1) && card.zPosition == 3 && card.opacity == 0.25)
        #expect(card.cornerRadius == 4 && card.borderWidth == 1 && card.borderColor == .blue && card.masksToBounds)
        #expect(!card.isDoubleSided && card.contentsGravity == .topLeft && card.contentsScale == 2 && card.minificationFilter == .nearest)
        // translate then scale: (0,0) → (1,2) → (2,4).
        #expect(card.transform.apply(to: Point(x: 0, y: 0)) == Point(x: 2, y: 4))
    }

    @Test("malformed scenes throw errors naming the file, the JSON path and the problem", arguments: [
        (##"{"version": 1, "size": [10, 10], "root": {"frame": [0,0,10,10], "sublayers": [{"opacty": 0.5}]}}"##,
         "$.root.sublayers[0].opacty", "unknown property 'opacty'"),
        (##"{"version": 1, "size": [10, 10], "root": {"opacity": "half"}}"##, "$.root.opacity", "expected a number, found a string"),
        (##"{"version": 1, "size": [10, 10], "root": {"hidden": 1}}"##, "$.root.hidden", "expected true or false, found a number"),
        (##"{"version": 1, "size": [10, 10], "root": {"contents": "nope.png"}}"##, "$.root.contents", "missing image 'nope.png'"),
        (##"{"version": 1, "size": [10, 10], "root": {"sublayers": [{}, {"bounds": [0, 0, -5, 10]}]}}"##,
         "$.root.sublayers[1].bounds", "negative size -5.0×10.0"),
        (##"{"version": 1, "size": [10, 10], "root": {"opacity": 2}}"##, "$.root.opacity", "out of range"),
        (##"{"version": 1, "size": [10, 10], "root": {"backgroundColor": "#12345"}}"##, "$.root.backgroundColor", "is not a colour"),
        (##"{"version": 1, "size": [10, 10], "root": {"backgroundColor": "#+12345"}}"##, "$.root.backgroundColor", "is not a colour"),
        (##"{"version": 1, "size": [10, 10], "root": {"drawing": [{"rect": [0,0,1,1], "ellipse": [0,0,1,1], "fill": "red"}]}}"##,
         "$.root.drawing[0]", "exactly one of rect, ellipse"),
        (##"{"version": 1, "size": [10, 10], "root": {"drawing": [{"path": "M 0 0 X 3 3", "fill": "red"}]}}"##,
         "$.root.drawing[0].path", "unknown path command 'X'"),
        (##"{"version": 1, "size": [10, 10], "root": {"drawing": [{"text": "hi"}]}}"##, "$.root.drawing[0]", "text needs 'at'"),
        (##"{"version": 1, "size": [10, 10], "root": {"drawing": [{"rect": [0,0,1,1]}]}}"##, "$.root.drawing[0]", "a shape needs fill"),
        (##"{"version": 1, "size": [10, 10], "root": {"drawing": [{"text": "a", "at": [0, 0], "font": {"weight": "heavyish"}}]}}"##,
         "$.root.drawing[0].font.weight", "unknown weight 'heavyish'"),
        (##"{"version": 1, "size": [10, 10], "root": {"contentsGravity": "middle"}}"##, "$.root.contentsGravity", "expected one of: center"),
        (##"{"version": 1, "size": [10, 10], "root": {"transform": [{"spin": 3}]}}"##, "$.root.transform[0].spin", "unknown property 'spin'"),
        (##"{"version": 1, "size": [10, 10], "root": {"frame": [0,0,1,1], "position": [1, 1]}}"##, "$.root.frame", "cannot be combined with 'position'"),
        (##"{"version": 2, "size": [10, 10], "root": {}}"##, "$.version", "unsupported scene version 2"),
        (##"{"version": 1, "size": [10, 10]}"##, "$", "missing 'root'"),
        (##"{"version": 1, "size": [10, 10], "root": {"sublayers": {}}}"##, "$.root.sublayers", "expected an array, found an object"),
        ("{\"version\": 1,\n  \"size\": [10, 10],,\n}", "$", "not valid JSON (line 2"),
    ])
    func malformed(json: String, path: String, problem: String) throws {
        let error = try #require(sceneError(json), "should not parse: \(json)")
        #expect(error.file == "test.json")
        #expect(error.path == path, "\(error)")
        #expect(error.problem.contains(problem), "\(error)")
        #expect(error.description.hasPrefix("test.json: \(path): "))
    }

    @Test("a missing scene file is an error naming it")
    func missingFile() {
        #expect(throws: SceneError(file: "/nonexistent/scene.json", path: "$", problem: "no such file")) {
            _ = try Scene.load(contentsOf: "/nonexistent/scene.json")
        }
    }

    @Test("the reftests of Tests/Reftests/reftest.list pass")
    func reftests() throws {
        let manifest = try ReftestManifest(contentsOf: repositoryRoot.appendingPathComponent("Tests/Reftests/reftest.list").path)
        #expect(manifest.entries.count >= 14)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-reftest-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let device = try GPUDevice()
        let results = ReftestRunner(device: device, outputDirectory: out).run(manifest)
        for r in results { #expect(r.passed, "\(r)") }
        #expect(results.contains { $0.entry.relation == .notEqual })
    }

    @Test("a failing reftest reports its differences and writes actual/expected/diff images")
    func failingReftest() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-reftest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let reftests = repositoryRoot.appendingPathComponent("Tests/Reftests").path
        try """
        # deliberately wrong
        == \(reftests)/rotate-90.json \(reftests)/rotate-90-wrong.json
        fuzzy(255,1200) == \(reftests)/rotate-90.json \(reftests)/rotate-90-wrong.json
        fuzzy(255,1199) == \(reftests)/rotate-90.json \(reftests)/rotate-90-wrong.json
        """.write(to: dir.appendingPathComponent("m.list"), atomically: true, encoding: .utf8)
        let manifest = try ReftestManifest(contentsOf: dir.appendingPathComponent("m.list").path)
        let results = ReftestRunner(device: try GPUDevice(), outputDirectory: dir.appendingPathComponent("out").path).run(manifest)
        #expect(results.map(\.passed) == [false, true, false])   // the fuzz allows exactly the 1200 differing pixels
        #expect(results[0].differingPixels == 1200 && results[0].maxDifference == 255, "\(results[0])")
        try #require(results[0].images.count == 3)
        for path in results[0].images { #expect(FileManager.default.fileExists(atPath: path)) }
        let diff = try RGBAImage(contentsOfPNG: results[0].images[2])
        #expect(diff[50, 70] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))    // only in the test
        #expect(diff[5, 5].r == diff[5, 5].g)                             // unchanged: grey
    }

    @Test("a manifest that includes itself is an error, not endless recursion")
    func includeCycle() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-\(UUID().uuidString).list")
        defer { try? FileManager.default.removeItem(at: file) }
        try "include \(file.lastPathComponent)\n".write(to: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try ReftestManifest(contentsOf: file.path)
        } throws: { error in
            (error as? SceneError)?.problem.contains("includes itself") == true
        }
    }

    @Test("malformed manifest lines are errors naming the line")
    func badManifest() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-\(UUID().uuidString).list")
        defer { try? FileManager.default.removeItem(at: file) }
        try "== a.json b.json\nfuzzy(2) == a.json b.json\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: SceneError.self) { _ = try ReftestManifest(contentsOf: file.path) }
        do { _ = try ReftestManifest(contentsOf: file.path) } catch let e as SceneError {
            #expect(e.path == "line 2" && e.problem.contains("fuzzy(maxDiff,count)"))
        }
    }

    @Test("fuzzy-if(RENDERER,…) replaces the fuzz on renderers whose name contains RENDERER; malformed or repeated ones are errors")
    func fuzzyIf() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-\(UUID().uuidString).list")
        defer { try? FileManager.default.removeItem(at: file) }
        try "fuzzy(2,5) fuzzy-if(NVIDIA,1,400) fuzzy-if(llvmpipe,3,7) == a.json b.json\n== c.json d.json\n".write(to: file, atomically: true, encoding: .utf8)
        let m = try ReftestManifest(contentsOf: file.path)
        let e = m.entries[0]
        #expect(e.fuzz(on: "NVIDIA H200/PCIe/SSE2") == (1, 400))
        #expect(e.fuzz(on: "llvmpipe (LLVM 15.0.6, 256 bits)") == (3, 7))
        #expect(e.fuzz(on: "AMD Radeon (radeonsi)") == (2, 5))
        #expect(m.entries[1].fuzz(on: "NVIDIA H200") == (0, 0))
        for (line, problem) in [("fuzzy-if(NVIDIA,1) == a.json b.json", "fuzzy-if(renderer,maxDiff,count)"),
                                ("fuzzy-if(,1,2) == a.json b.json", "fuzzy-if(renderer,maxDiff,count)"),
                                ("fuzzy-if(NVIDIA,-1,2) == a.json b.json", "fuzzy-if(renderer,maxDiff,count)"),
                                ("fuzzy-if(NVIDIA,1,2) fuzzy-if(nvidia,3,4) == a.json b.json", "given twice")] {
            try "\(line)\n".write(to: file, atomically: true, encoding: .utf8)
            #expect {
                _ = try ReftestManifest(contentsOf: file.path)
            } throws: { error in
                guard let e = error as? SceneError else { return false }
                return e.path == "line 1" && e.problem.contains(problem)
            }
        }
    }

    @Test("the showcase scene renders and uses most features")
    func showcase() throws {
        let path = repositoryRoot.appendingPathComponent("Examples/showcase.json").path
        let scene = try Scene.load(contentsOf: path)
        let (image, stats) = try scene.render(device: try GPUDevice())
        #expect(image.width == Int(scene.size.width * scene.scale))
        #expect(stats.offscreenPasses >= 1)       // a translucent group
        #expect(stats.quadsDrawn >= 10)
        var kinds = Set<String>()
        func walk(_ l: Layer) {
            if l is TransformLayer { kinds.insert("transformLayer") }
            if l.masksToBounds && l.cornerRadius > 0 { kinds.insert("roundedClip") }
            if l.borderWidth > 0 { kinds.insert("border") }
            if l.contents != nil { kinds.insert("contents") }
            if l.opacity < 1 { kinds.insert("opacity") }
            if l.sublayerTransform.m34 != 0 { kinds.insert("perspective") }
            if !l.transform.isIdentity { kinds.insert("transform") }
            if l.shadowOpacity > 0 { kinds.insert("shadow") }
            if l.mask != nil { kinds.insert("mask") }
            if l is ShapeLayer { kinds.insert("shapeLayer") }
            if l is GradientLayer { kinds.insert("gradientLayer") }
            if l is ReplicatorLayer { kinds.insert("replicatorLayer") }
            if !l.backgroundFilters.isEmpty { kinds.insert("backdropBlur") }
            if l.compositingFilter != nil { kinds.insert("blendMode") }
            l.sublayers.forEach(walk)
            if let m = l.mask { walk(m) }
        }
        walk(scene.root)
        #expect(kinds == ["transformLayer", "roundedClip", "border", "contents", "opacity", "perspective", "transform", "shadow", "mask",
                          "shapeLayer", "gradientLayer", "replicatorLayer", "backdropBlur", "blendMode"])
        #expect(stats.blurs >= 2, "the frosted glass and the star's shadow are blurred: \(stats)")
        // The masked photo shows inside the star only; the multiply blend darkens the overlaps.
        let starCentre = image[545, 470], outsideStar = image[474, 416]
        #expect(starCentre != outsideStar && outsideStar.maxChannelDifference(RGBAPixel(r: 29, g: 35, b: 48, a: 255)) <= 2,
                "star \(starCentre), corner \(outsideStar)")
        let cyanMagenta = image[530, 552], cyan = image[505, 552]
        #expect(cyanMagenta.r < 60 && cyanMagenta.g < 60 && cyanMagenta.b > 100, "multiply of cyan and magenta is blue: \(cyanMagenta)")
        #expect(cyan.g > 180 && cyan.b > 230 && cyan.r < 40, "\(cyan)")
        // The flipped card shows its yellow front (the blue back faces away), turned about its centre.
        let centre = image[468, 112]
        #expect(centre.r > 200 && centre.g > 150 && centre.b < 60, "card centre \(centre)")
        var backPixels = 0   // the back's blue, #4285f4
        for y in 24..<200 { for x in 320..<616 {   // the card flip's frame (the effects row has blues of its own)
            let p = image[x, y]
            if p.maxChannelDifference(RGBAPixel(r: 66, g: 133, b: 244, a: 255)) <= 8 { backPixels += 1 }
        } }
        #expect(backPixels == 0, "the culled back shows in \(backPixels) pixels")
    }

    @Test("the example scenes render the same into BGRA8 and RGBA8 targets (groups, masks, shadows, blurs, blends)",
          arguments: ["showcase.json", "effects.json", "corners.json", "shader-layers.json"])
    func targetStorages(file: String) throws {
        let scene = try Scene.load(contentsOf: repositoryRoot.appendingPathComponent("Examples/" + file).path)
        func render(_ storage: TextureStorage) throws -> RGBAImage {
            let device = try GPUDevice()
            defer { device.close() }
            device.targetStorage = storage
            return try scene.render(device: device).image
        }
        let rgba = try render(.rgba8), bgra = try render(.bgra8)
        let difference = bgra.difference(from: rgba, tolerance: 0)
        // Byte for byte. (llvmpipe clips a primitive that crosses a BGRA8 target's edge
        // against a guard band rather than the edge, which may move a pixel along that edge:
        // none moves in these scenes.)
        #expect(difference.differing == 0, "\(file): \(difference.differing) pixels differ, by up to \(difference.maxDifference)")
    }
}
