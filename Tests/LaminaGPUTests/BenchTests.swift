import Foundation
import LaminaGeometry
import LaminaGraphics
import Testing

/// `lamina bench` (docs/benchmarks.md): small and fast here — what is checked is that every
/// scene runs through Lamina and through the raw-GL ceiling, that the report carries every
/// number, and that both sides draw the same pixels. No timing is asserted.
@Suite("lamina bench")
struct BenchTests {
    static let scenes = ["S1", "S2", "S3", "S4", "S5", "S6", "S6-1k", "S6S", "S6S-1k", "D1", "D2", "D3", "D4", "D5"]

    /// Runs the bench with `--json` and returns the report parsed from its standard output
    /// (what the driver logs on standard error — Mesa notes an option set in the
    /// environment, such as `mesa_glthread` — is kept aside, and shown with the output).
    private func bench(_ arguments: [String]) throws -> (status: Int32, report: [String: Any]?, output: String) {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-bench-\(UUID().uuidString).err").path
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let run = try runLamina(["bench", "--json"] + arguments, timeout: 900, errorsAside: errors)
        let object = try? JSONSerialization.jsonObject(with: Data(run.output.utf8))
        let logged = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        return (run.status, object as? [String: Any], logged + run.output)
    }

    private func number(_ object: Any?, _ path: String) -> Double? {
        var current: Any? = object
        for key in path.split(separator: ".") { current = (current as? [String: Any])?[String(key)] }
        return (current as? NSNumber)?.doubleValue
    }

    @Test("all scenes at 320×180: valid JSON with every field, and each last frame equals the ceiling's")
    func allScenes() throws {
        let run = try bench(["--frames", "3", "--warmup", "1", "--size", "320x180"])
        #expect(run.status == 0, "\(run.output)")
        let report = try #require(run.report, "not JSON: \(run.output)")
        #expect(number(report, "frames") == 3 && number(report, "warmup") == 1)
        #expect(number(report, "target.width") == 320 && number(report, "target.height") == 180)
        for key in ["backend", "backendDetail", "renderer", "ceilingPlatform"] {
            #expect((report[key] as? String)?.isEmpty == false, "\(key)")
        }
        #expect(number(report, "finishOverhead.wallMs.median") != nil)
        #expect(number(report, "pixelTolerance.channel") != nil && number(report, "pixelTolerance.maxDifferingPixels") != nil)
        #expect(report["perturbed"] as? Bool == false)
        // The effect scenes, each measured against its baseline.
        let effects = try #require(report["effects"] as? [[String: Any]])
        #expect(effects.map { $0["id"] as? String } == ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8"])
        for e in effects {
            #expect((number(e, "effect") ?? 0) > 0 && (number(e, "base") ?? 0) > 0 && (number(e, "ratio") ?? 0) > 0, "\(e)")
        }

        let scenes = try #require(report["scenes"] as? [[String: Any]])
        #expect(scenes.compactMap { $0["id"] as? String } == BenchTests.scenes)
        let quads = ["S1": 1000, "S2": 1000, "S3": 1001, "S4": 1800, "S5": 200, "S6": 100_000, "S6-1k": 1000, "S6S": 100_000,
                     "S6S-1k": 1000, "D1": 1001, "D2": 1002, "D3": 1001, "D4": 1001, "D5": 1001]
        for scene in scenes {
            let id = scene["id"] as? String ?? "?"
            #expect((scene["summary"] as? String)?.isEmpty == false, "\(id)")
            #expect(number(scene, "frames") == 3, "\(id)")
            #expect((number(scene, "layers") ?? 0) >= 200, "\(id)")
            for side in ["lamina", "ceiling"] {
                for clock in ["wallMs", "cpuMs", "threadMs"] {
                    for statistic in ["median", "p90", "min", "max"] {
                        let v = number(scene, "\(side).\(clock).\(statistic)")
                        #expect(v != nil && v! >= 0, "\(id) \(side).\(clock).\(statistic)")
                    }
                    #expect(number(scene, "\(side).\(clock).median")! <= number(scene, "\(side).\(clock).p90")!, "\(id)")
                }
            }
            for ratio in ["wall", "cpu", "thread"] { #expect(number(scene, "ratios.\(ratio)") != nil, "\(id) ratios.\(ratio)") }
            #expect(number(scene, "threadMicrosecondsPerLayer") != nil, "\(id)")
            for field in ["compositedFrames", "drawCalls", "layersVisited", "quadsDrawn", "offscreenPasses", "damagedPixels", "uploadedBytes", "layersDrawn"] {
                #expect(number(scene, "laminaFrame.\(field)") != nil, "\(id) laminaFrame.\(field)")
            }
            #expect(number(scene, "ceilingFrame.drawCalls") == 1, "\(id): the ceiling draws with one call")
            #expect(number(scene, "ceilingFrame.quads").map { Int($0) } == quads[id], "\(id)")
            #expect(number(scene, "ceilingFrame.vertexBytes") != nil && number(scene, "ceilingFrame.textureBytesUploaded") != nil, "\(id)")
            if ["S6-1k", "S6S-1k", "D1"].contains(id) {
                #expect(scene["goal"] == nil, "the baseline has no goal of its own")
            } else {
                let goal = try #require(scene["goal"] as? [String: Any], "\(id) has no goal")
                #expect(goal["met"] is Bool && !((goal["checks"] as? [Any]) ?? []).isEmpty, "\(id)")
            }
            // The pixel check: the ceiling and Lamina drew the same picture.
            let check = try #require(scene["pixelCheck"] as? [String: Any], "\(id)")
            #expect(check["checked"] as? Bool == true, "\(id)")
            #expect(check["passed"] as? Bool == true, "\(id): \(check)")
            #expect((check["images"] as? [Any])?.isEmpty == true, "\(id)")
            #expect(number(check, "maxDifference") != nil && number(check, "differingPixels") != nil && number(check, "anyDifference") != nil)
        }
        let byID = Dictionary(uniqueKeysWithValues: scenes.map { ($0["id"] as? String ?? "", $0) })
        // What Lamina reports per frame follows the scenes: S1 composites every frame, its
        // 1000 changed layers visited (not the root) and drawn in a handful of draw calls
        // (its textures share the atlas); S2 (frozen) never composites; S3 draws and uploads
        // its 256×256 layer (into the atlas, with a 1-pixel border); S6 visits the one layer
        // that moved among 10⁵.
        #expect(number(byID["S1"], "laminaFrame.compositedFrames") == 3)
        #expect(number(byID["S1"], "laminaFrame.layersVisited") == 1000)
        #expect((number(byID["S1"], "laminaFrame.drawCalls") ?? 1000) <= 8, "S1 is batched")
        #expect(number(byID["S2"], "laminaFrame.compositedFrames") == 0)
        #expect(number(byID["S2"], "laminaFrame.drawCalls") == 0)
        #expect(number(byID["S3"], "laminaFrame.layersDrawn") == 1)
        #expect(number(byID["S3"], "laminaFrame.uploadedBytes") == Double(258 * 258 * 4))
        #expect(number(byID["S3"], "ceilingFrame.textureBytesUploaded") == Double(256 * 256 * 4))
        #expect(number(byID["S6"], "laminaFrame.layersVisited") == 1, "O(changed): one layer of 10⁵ moved")
        #expect(number(byID["S6-1k"], "laminaFrame.layersVisited") == 1)
        let s6Checks = (byID["S6"]?["goal"] as? [String: Any])?["checks"] as? [[String: Any]]
        #expect(s6Checks?.count == 2)
        // S6's goal compares Lamina's frames back to back; the interleaved ratios are reported beside it.
        #expect(byID["S6"]?["laminaAlone"] is [String: Any] && byID["S6-1k"]?["laminaAlone"] is [String: Any])
        #expect(((byID["S6"]?["goal"] as? [String: Any])?["references"] as? [Any])?.count == 2)
    }

    @Test("the pixel check can fail: a perturbed ceiling is reported with images, an error only with --strict")
    func perturbedCeilingFails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = ["--frames", "1", "--warmup", "0", "--size", "160x90", "--perturb", "-o", folder]
        let run = try bench(arguments + ["--scene", "S1,S4,S6-1k"])
        #expect(run.status == 0, "a mismatch is reported, not an error: \(run.output)")
        let report = try #require(run.report, "not JSON: \(run.output)")
        #expect(report["perturbed"] as? Bool == true)
        let scenes = try #require(report["scenes"] as? [[String: Any]])
        #expect(scenes.count == 3)
        for scene in scenes {
            let id = scene["id"] as? String ?? "?"
            let check = try #require(scene["pixelCheck"] as? [String: Any])
            #expect(check["passed"] as? Bool == false, "\(id): \(check)")
            #expect((number(check, "differingPixels") ?? 0) > (number(report, "pixelTolerance.maxDifferingPixels") ?? .infinity), "\(id)")
            let images = check["images"] as? [String] ?? []
            #expect(images.count == 3, "\(id)")
            for path in images {
                let image = try RGBAImage(contentsOfPNG: path)
                #expect(image.width == 160 && image.height == 90, "\(path)")
            }
        }
        let strict = try runLamina(["bench"] + arguments + ["--scene", "S4", "--strict"], timeout: 600)
        #expect(strict.status != 0, "\(strict.output)")
        #expect(strict.output.contains("MISMATCH"))
    }

    @Test("S1 and S1A (S1 driven by animations) on a render thread: each last frame equals the ceiling's; S1A's frames draw no layer and upload nothing; the main thread does a fraction of the work")
    func renderThreadAndAnimatedScene() throws {
        let run = try bench(["--frames", "4", "--warmup", "1", "--size", "320x180", "--scene", "S1,S1A", "--render-thread"])
        #expect(run.status == 0, "\(run.output)")
        let report = try #require(run.report, "\(run.output)")
        let scenes = try #require(report["scenes"] as? [[String: Any]])
        #expect(scenes.compactMap { $0["id"] as? String } == ["S1", "S1A"])
        for scene in scenes {
            let id = scene["id"] as? String ?? "?"
            let check = try #require(scene["pixelCheck"] as? [String: Any], "\(id)")
            #expect(check["checked"] as? Bool == true && check["passed"] as? Bool == true, "\(id): \(check)")
            #expect(number(scene, "laminaFrame.compositedFrames") == 4, "\(id)")
            #expect(number(scene, "laminaFrame.quadsDrawn") == 1000, "\(id)")
        }
        let animated = scenes[1]
        #expect(number(animated, "laminaFrame.uploadedBytes") == 0 && number(animated, "laminaFrame.layersDrawn") == 0)
        // The render thread does the compositing: the main thread's CPU is far below the process's.
        #expect(number(animated, "lamina.threadMs.median")! < number(animated, "lamina.cpuMs.median")! / 4, "\(animated)")
    }

    @Test("unknown scenes and bad frame counts are refused")
    func badOptions() throws {
        let scene = try runLamina(["bench", "--scene", "S1,S9"])
        #expect(scene.status != 0)
        #expect(scene.output.contains("unknown scene 'S9'"), "\(scene.output)")
        let frames = try runLamina(["bench", "--frames", "0"])
        #expect(frames.status != 0)
        #expect(frames.output.contains("--frames must be at least 1"), "\(frames.output)")
    }
}
