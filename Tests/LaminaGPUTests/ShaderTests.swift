import CEGL
import Foundation
import LaminaTestSupport
import Testing
@testable import LaminaGPU

@Suite("Shaders")
struct ShaderTests {
    @Test("every shader of Shaders/ is embedded, byte for byte")
    func embeddedMatchesSourceTree() throws {
        let dir = repositoryRoot.appendingPathComponent("Shaders")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".vert") || $0.hasSuffix(".frag") }.sorted()
        #expect(!files.isEmpty)
        #expect(Shaders.names == files)
        for name in files {
            let onDisk = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            #expect(try Shaders.source(named: name) == onDisk, "\(name) differs from its embedded copy")
        }
        #expect(throws: GPUError.self) { try Shaders.source(named: "missing.frag") }
    }

    @Test("every fragment shader links with its vertex shader on the driver (batch-*.frag with batch.vert, the others with quad.vert)")
    func allCompile() throws {
        let d = try openDevice()
        for fragment in Shaders.names where fragment.hasSuffix(".frag") {
            let batched = fragment.hasPrefix("batch-")
            let p = try d.program(vertex: batched ? "batch.vert" : "quad.vert", fragment: fragment)
            if batched {
                // Nothing per draw: the clip-space position comes with each vertex.
                #expect(p.uniformLocation("u_transform") == -1, "\(fragment)")
            } else {
                #expect(p.uniformLocation("u_transform") >= 0, "\(fragment)")
            }
        }
    }

    @Test("on a desktop OpenGL 3.3 core context every shader links, as GLSL ES 3.00 and as #version 330 core (external textures excepted: desktop GL has none)",
          arguments: [GLSLDialect.es300, .glsl330])
    func desktopDialects(_ dialect: GLSLDialect) throws {
        let display = try #require(eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nil, nil))
        eglInitialize(display, nil, nil)
        let api = eglQueryAPI()
        eglBindAPI(EGLenum(EGL_OPENGL_API))
        defer { eglBindAPI(api) }
        var config: EGLConfig?
        var n: EGLint = 0
        eglChooseConfig(display, [EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE], &config, 1, &n)
        let context = try #require(eglCreateContext(display, config, nil, [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                                                         EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE]))
        defer { eglDestroyContext(display, context) }
        #expect(eglMakeCurrent(display, nil, nil, context) == EGL_TRUE)
        defer { eglMakeCurrent(display, nil, nil, nil) }
        let d = try GPUDevice(adopting: .current)
        defer { d.close() }
        #expect(d.capabilities.isDesktopGL && d.gl.desktopGL != nil)
        #expect(d.gl.shaderDialect == .es300)                        // Mesa has GL_ARB_ES3_compatibility
        d.gl.shaderDialect = dialect
        for fragment in Shaders.names where fragment.hasSuffix(".frag") && fragment != "batch-external.frag" {
            _ = try d.program(vertex: fragment.hasPrefix("batch-") ? "batch.vert" : "quad.vert", fragment: fragment)
        }
        #expect(d.liveObjectCounts[.program] == Shaders.names.filter { $0.hasSuffix(".frag") }.count - 1)
    }

    @Test("a shader with a syntax error throws with the driver's log")
    func syntaxError() throws {
        let d = try openDevice()
        let broken = "#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { c = vec4(1.0) +; }\n"
        do {
            _ = try d.makeProgram(vertexSource: try Shaders.source(named: "quad.vert"), vertexName: "quad.vert",
                                  fragmentSource: broken, fragmentName: "broken.frag")
            Issue.record("a broken shader compiled")
        } catch let GPUError.shaderCompile(name, log) {
            #expect(name == "broken.frag")
            #expect(log.contains("error"), "driver log: \(log)")
            #expect(GPUError.shaderCompile(name: name, log: log).description.contains("broken.frag"))
        }
        #expect(d.liveObjectCounts[.program] == 0)
    }

    @Test("mismatched stages fail to link, with the driver's log")
    func linkError() throws {
        let d = try openDevice()
        let vs = "#version 300 es\nin vec2 a_position;\nvoid main() { gl_Position = vec4(a_position, 0.0, 1.0); }\n"
        let fs = "#version 300 es\nprecision mediump float;\nin vec2 v_missing;\nout vec4 c;\nvoid main() { c = vec4(v_missing, 0.0, 1.0); }\n"
        #expect {
            _ = try d.makeProgram(vertexSource: vs, fragmentSource: fs)
        } throws: { error in
            guard case let GPUError.programLink(_, _, log) = error else { return false }
            return !log.isEmpty
        }
    }

    /// Runs glslangValidator on one shader text; returns (exit status, output).
    private func validate(_ name: String, _ source: String) throws -> (Int32, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-glslang-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(name)
        try source.write(to: file, atomically: true, encoding: .utf8)
        return try runProcess("/usr/bin/glslangValidator", [file.path])
    }

    @Test("glslangValidator accepts every embedded shader (and rejects a broken one)")
    func glslang() throws {
        // glslang-tools is installed by Tools/setup.sh; its absence is a failure, not a skip.
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/glslangValidator"),
                "glslangValidator missing: apt-get install glslang-tools (Tools/setup.sh does)")
        for name in Shaders.names {
            let (status, output) = try validate(name, try Shaders.source(named: name))
            #expect(status == 0, "\(name): \(output)")
        }
        let (status, _) = try validate("broken.frag", "#version 300 es\nvoid main() { undefined_call(); }\n")
        #expect(status != 0)
    }
}
