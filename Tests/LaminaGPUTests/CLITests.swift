import Foundation
import LaminaTestSupport
import LaminaGeometry
import LaminaGraphics
import Testing

/// The `lamina` executable built next to this test binary (`swift build --build-tests`
/// builds every product). Also used by BenchTests. `errorsAside`: see `runProcess`.
func runLamina(_ arguments: [String], environment: [String: String] = [:], timeout: Double? = nil,
               errorsAside: String? = nil) throws -> (status: Int32, output: String) {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    let executable = directory.appendingPathComponent("lamina")
    try #require(FileManager.default.isExecutableFile(atPath: executable.path), "no lamina at \(executable.path)")
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "LAMINA_BACKEND")
    for (k, v) in environment { env[k] = v }
    return try runProcess(executable.path, arguments, environment: env, timeout: timeout, errorsAside: errorsAside)
}

@Suite("lamina CLI")
struct CLITests {
    @Test("a program printing more than a pipe holds finishes under a timeout, and all it printed is read")
    func longOutput() throws {
        // (The bench's JSON report is tens of KB; a pipe holds 64 KB until it is read.)
        let run = try runProcess("/bin/sh", ["-c", "head -c 300000 /dev/zero | tr '\\0' x"], timeout: 60)
        #expect(run.status == 0)
        #expect(run.output.utf8.count == 300_000 && run.output.allSatisfy { $0 == "x" })
    }

    @Test("LAMINA_BACKEND forces the backend; --backend wins over it")
    func environmentAndFlag() throws {
        let viaEnv = try runLamina(["info"], environment: ["LAMINA_BACKEND": "surfaceless"])
        #expect(viaEnv.status == 0, "\(viaEnv.output)")
        #expect(viaEnv.output.contains("backend:            surfaceless"))
        #expect(viaEnv.output.contains("GL version:         OpenGL ES 3"))
        let viaFlag = try runLamina(["info", "--backend", "device"], environment: ["LAMINA_BACKEND": "surfaceless"])
        #expect(viaFlag.output.contains("backend:            device"), "\(viaFlag.output)")
    }

    @Test("a bad backend name and an unavailable backend fail with the documented messages")
    func errors() throws {
        let bad = try runLamina(["info"], environment: ["LAMINA_BACKEND": "vulkan"])
        #expect(bad.status != 0)
        #expect(bad.output.contains("unknown backend 'vulkan'"))
        let missing = try runLamina(["info", "--backend", "gbm", "--drm-device", "/dev/dri/card-missing"])
        #expect(missing.status != 0)
        #expect(missing.output.contains("could not open a GPU device (backend gbm)"))
        #expect(missing.output.contains("/dev/dri/card-missing"))
    }

    @Test("selftest writes the test pattern as a PNG of the requested size and scale")
    func selftest() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-cli-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try runLamina(["selftest", "-o", path, "--size", "120x80", "--scale", "2", "--backend", "surfaceless"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("240×160 px, 4 draw calls"))   // 15 quads in 4 batches
        let image = try RGBAImage(contentsOfPNG: path)
        #expect(image.width == 240 && image.height == 160)
        #expect(image[0, 0] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        #expect(image[239, 159] == RGBAPixel(r: 255, g: 255, b: 255, a: 255))
    }

    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("render: a scene beyond the limits fails with the file, the JSON path and the layer's name")
    func renderLimits() throws {
        let scene = CLITests.repository.appendingPathComponent("Tests/SceneFuzz/reproducers/contents-scale-1e300.json").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-cli-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try runLamina(["render", scene, "-o", out, "--backend", "surfaceless"], timeout: 60)
        #expect(run.status != 0)
        #expect(run.output.contains("\(scene): $.root.sublayers[0].contentsScale: layer 'huge-scale': 1e+300 is beyond the limit for contentsScale (16)"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("render: a target beyond the GPU names the scene and the limit; --size and --scale keep the scene limits")
    func renderTargetLimits() throws {
        let scene = CLITests.repository.appendingPathComponent("Examples/showcase.json").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-cli-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let big = try runLamina(["render", scene, "-o", out, "--size", "100000x10", "--backend", "surfaceless"], timeout: 60)
        #expect(big.status != 0)
        #expect(big.output.contains("\(scene): $.size: cannot render 100000.0×10.0 pt at scale"), "\(big.output)")
        #expect(big.output.contains("px a side"))
        let huge = try runLamina(["render", scene, "-o", out, "--size", "1e308x10"], timeout: 60)
        #expect(huge.status != 0 && huge.output.contains("--size must be at most 1000000 pt a side"), "\(huge.output)")
        let scale = try runLamina(["render", scene, "-o", out, "--scale", "1e300"], timeout: 60)
        #expect(scale.status != 0 && scale.output.contains("--scale must be above 0 and at most 16"), "\(scale.output)")
    }

    @Test("render --time-budget: a render that takes longer stops with a clear error and a non-zero status")
    func timeBudget() throws {
        let scene = CLITests.repository.appendingPathComponent("Examples/showcase.json").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-cli-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        // Opening the GPU device alone takes far longer than a microsecond.
        let run = try runLamina(["render", scene, "-o", out, "--time-budget", "0.000001", "--backend", "surfaceless"], timeout: 60)
        #expect(run.status == 4, "\(run.output)")
        #expect(run.output.contains("\(scene): rendering did not finish within the time budget of 1e-06 s (--time-budget)"), "\(run.output)")
        let ok = try runLamina(["render", scene, "-o", out, "--time-budget", "60", "--backend", "surfaceless"], timeout: 60)
        #expect(ok.status == 0, "\(ok.output)")
        let bad = try runLamina(["render", scene, "-o", out, "--time-budget", "inf"], timeout: 60)
        #expect(bad.status != 0 && bad.output.contains("--time-budget must be a number of seconds"), "\(bad.output)")
    }
}
