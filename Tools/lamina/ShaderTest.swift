import ArgumentParser
import Foundation
import LaminaGPU

/// `lamina shader-test FILE…`: piglit `shader_runner` tests on a Lamina device.
struct ShaderTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shader-test",
        abstract: "Run shader tests in piglit's shader_runner format (*.shader_test) on a Lamina device.",
        discussion: """
            Sections: [require] (GL ES / GLSL ES versions, extensions, SIZE), [vertex shader], \
            [vertex shader passthrough], [fragment shader], [vertex data], [test]. Exit status as \
            piglit's: 0 when every test passes, 1 when one fails (each failing probe is printed \
            with its expected and observed values), 77 when every test was skipped (a requirement \
            unmet, or a command this runner does not support). See docs/testing.md.
            """)

    @OptionGroup var device: DeviceOptions

    @Flag(help: "Print only failures and the summary.")
    var quiet = false

    @Argument(help: "Shader test files.")
    var files: [String]

    func run() throws {
        let gpu = try device.open()
        defer { gpu.close() }
        var counts: [String: Int] = [:]
        for file in files {
            let result = ShaderTestRunner.run(path: file, device: gpu)
            counts[result.outcome.name, default: 0] += 1
            let head = "\(result.outcome.name): \(file) (\(result.probes) probes, \(String(format: "%.3f", result.seconds)) s)"
            switch result.outcome {
            case .pass:
                if !quiet { print(head) }
            case .skip(let why):
                if !quiet { print(head + "\n  " + why) }
            case .fail:
                print(head)
                for m in result.messages { print("  " + m.replacingOccurrences(of: "\n", with: "\n  ")) }
            }
        }
        let pass = counts["pass"] ?? 0, fail = counts["fail"] ?? 0, skip = counts["skip"] ?? 0
        print("shader-test: \(pass) passed, \(fail) failed, \(skip) skipped")
        if fail > 0 { throw ExitCode(1) }
        if skip > 0 && pass == 0 { throw ExitCode(77) }
    }
}
