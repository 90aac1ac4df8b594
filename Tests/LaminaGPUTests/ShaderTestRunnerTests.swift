import Foundation
import LaminaGPU
import LaminaTestSupport
import Testing

private func files(_ folder: String) throws -> [String] {
    let dir = repositoryRoot.appendingPathComponent("Examples/shader-tests/" + folder)
    return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".shader_test") }.sorted()
        .map { dir.appendingPathComponent($0).path }
}

@Suite("lamina shader-test (piglit's shader_runner format)")
struct ShaderTestRunnerTests {
    @Test("the example tests pass: uniforms, clear, draw rect (and ortho), draw arrays with vertex data, every probe kind, tolerance, link error")
    func examplesPass() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let all = try files("")
        #expect(all.count >= 5)
        var probes = 0
        for f in all {
            let r = ShaderTestRunner.run(path: f, device: device)
            #expect(r.outcome == .pass, "\(f): \(r.outcome) \(r.messages)")
            probes += r.probes
        }
        #expect(probes >= 12)
    }

    @Test("tests that must fail do: a wrong probe prints expected and observed values; compile errors and unexpected links are failures")
    func mustFail() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let all = try files("must-fail")
        #expect(all.count == 3)
        for f in all {
            let r = ShaderTestRunner.run(path: f, device: device)
            guard case .fail(let why) = r.outcome else { Issue.record("\(f) did not fail: \(r.outcome)"); continue }
            if f.hasSuffix("wrong-probe.shader_test") {
                #expect(why.contains("Expected: 0.000000 1.000000 0.000000 1.000000"), "\(why)")
                #expect(why.contains("Observed: 1.000000 0.000000 0.000000 1.000000"), "\(why)")
                #expect(why.contains("Probe color at (5,5)"), "\(why)")
            }
            if f.hasSuffix("compile-error.shader_test") {
                #expect(why.contains("undefined_value") && why.contains(">    4 | "), "the log and the line: \(why)")
            }
        }
    }

    @Test("unmet requirements skip (77): desktop GL, a missing extension")
    func mustSkip() throws {
        let device = try GPUDevice()
        defer { device.close() }
        for f in try files("must-skip") {
            let r = ShaderTestRunner.run(path: f, device: device)
            guard case .skip = r.outcome else { Issue.record("\(f) did not skip: \(r.outcome)"); continue }
            #expect(r.outcome.exitCode == 77)
        }
    }

    @Test("a tolerance at its edge: one 8-bit step passes with tolerance 0.004, fails with 0.003")
    func toleranceEdges() throws {
        let device = try GPUDevice()
        defer { device.close() }
        func script(_ tolerance: String) -> String {
            """
            [require]
            GL ES >= 3.0
            [vertex shader passthrough]
            [fragment shader]
            #version 300 es
            precision mediump float;
            out vec4 o;
            void main() { o = vec4(128.0 / 255.0, 0.0, 0.0, 1.0); }
            [test]
            tolerance \(tolerance)
            draw rect -1 -1 2 2
            probe all rgba \(127.0 / 255.0) 0.0 0.0 1.0
            """
        }
        #expect(ShaderTestRunner.run(text: script("0.004"), name: "edge", device: device).outcome == .pass)
        if case .fail = ShaderTestRunner.run(text: script("0.003"), name: "edge", device: device).outcome {} else {
            Issue.record("one step off passed with a tolerance below a step")
        }
    }

    @Test("the command's exit status: 0 when all pass, 1 with a failure, 77 when all skip; unknown commands skip, naming them")
    func exitStatus() throws {
        let pass = try runLamina(["shader-test"] + files(""))
        #expect(pass.status == 0, "\(pass.output)")
        #expect(pass.output.contains("passed, 0 failed"))
        let fail = try runLamina(["shader-test"] + files("") + files("must-fail"))
        #expect(fail.status == 1)
        #expect(fail.output.contains("3 failed"), "\(fail.output)")
        let skip = try runLamina(["shader-test"] + files("must-skip"))
        #expect(skip.status == 77, "\(skip.output)")
        let device = try GPUDevice()
        defer { device.close() }
        let unknown = ShaderTestRunner.run(text: "[require]\nGL ES >= 3.0\n[vertex shader passthrough]\n[fragment shader]\n#version 300 es\nprecision mediump float;\nout vec4 o;\nvoid main() { o = vec4(1.0); }\n[test]\ndraw teapot\n", name: "unknown", device: device)
        guard case .skip(let why) = unknown.outcome else { Issue.record("\(unknown.outcome)"); return }
        #expect(why.contains("draw teapot"))
    }
}
