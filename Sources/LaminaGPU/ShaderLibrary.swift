import LaminaValues
import CGLES
import Glibc

/// The GLSL ES 3.00 sources of `Shaders/`, embedded in the binary at build time by the
/// ShaderEmbedder plugin, and the programs compiled from them (cached per device).
public enum Shaders {
    /// File names of every embedded shader (`quad.vert`, `solid.frag`, …).
    public static var names: [String] { EmbeddedShaders.sources.keys.sorted() }

    /// The source of one embedded shader.
    public static func source(named name: String) throws -> String {
        guard let s = EmbeddedShaders.sources[name] else {
            throw GPUError.shaderNotFound(name: name, available: names)
        }
        return s
    }
}

/// The GLSL dialect Lamina's shaders (and users' GLSL ES 3.00) are compiled in on a
/// context. OpenGL ES 3 and desktop GL with `GL_ARB_ES3_compatibility` (core in 4.3) take
/// `#version 300 es` as it is; other desktop contexts get the same source as `#version
/// 330 core` (precision qualifiers are accepted there and mean nothing). The debugging
/// switch `LAMINA_GLSL_DIALECT=330` forces the second on any desktop context.
enum GLSLDialect: String, Sendable {
    case es300 = "GLSL ES 3.00"
    case glsl330 = "GLSL 3.30 core"

    static let environmentVariable = "LAMINA_GLSL_DIALECT"

    /// The dialect for a context (desktop or not, and what it supports).
    static func choose(desktop: Bool, extensions: Set<String>, glVersion: String) -> GLSLDialect {
        guard desktop else { return .es300 }
        if let v = getenv(environmentVariable), String(cString: v) == "330" { return .glsl330 }
        let es3 = extensions.contains("GL_ARB_ES3_compatibility") || (DesktopGL.version(glVersion).map { $0 >= (4, 3) } ?? false)
        return es3 ? .es300 : .glsl330
    }

    /// `source` in this dialect: only the `#version` line changes, so line numbers in the
    /// driver's log are the source's.
    func translate(_ source: String) -> String {
        guard self == .glsl330, let r = source.firstRange(of: "#version 300 es") else { return source }
        var s = source
        s.replaceSubrange(r, with: "#version 330 core")
        return s
    }
}

final class ShaderLibrary {
    private let gl: GLContext
    private var programs: [String: Program] = [:]

    init(gl: GLContext) { self.gl = gl }

    /// The linked program of two embedded shaders, compiled on first use.
    func program(vertex: String, fragment: String) throws -> Program {
        let key = vertex + "+" + fragment
        if let p = programs[key], !p.isReleased { return p }
        let p = try GPUDevice.makeProgram(gl, vertexSource: try Shaders.source(named: vertex), vertexName: vertex,
                                          fragmentSource: try Shaders.source(named: fragment), fragmentName: fragment)
        programs[key] = p
        return p
    }

    func releaseAll() {
        for p in programs.values { p.release() }
        programs = [:]
    }

    /// Drops the wrappers without GL calls (the context is gone).
    func forgetAll() { programs = [:] }
}

extension GPUDevice {
    /// Compiles and links a program from GLSL ES sources. Throws with the driver's log
    /// when a stage fails to compile or the program fails to link.
    public func makeProgram(vertexSource: String, vertexName: String = "vertex",
                            fragmentSource: String, fragmentName: String = "fragment") throws -> Program {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "makeProgram") }
        return try GPUDevice.makeProgram(gl, vertexSource: vertexSource, vertexName: vertexName,
                                         fragmentSource: fragmentSource, fragmentName: fragmentName)
    }

    static func makeProgram(_ gl: GLContext, vertexSource: String, vertexName: String,
                            fragmentSource: String, fragmentName: String) throws -> Program {
        try gl.withCurrentThrowing {
            try linkProgram(gl, vertexSource: vertexSource, vertexName: vertexName,
                            fragmentSource: fragmentSource, fragmentName: fragmentName)
        }
    }

    private static func linkProgram(_ gl: GLContext, vertexSource: String, vertexName: String,
                                    fragmentSource: String, fragmentName: String) throws -> Program {
        let vs = try compile(gl.shaderDialect.translate(vertexSource), stage: GLenum(GL_VERTEX_SHADER), name: vertexName)
        defer { glDeleteShader(vs) }
        let fs = try compile(gl.shaderDialect.translate(fragmentSource), stage: GLenum(GL_FRAGMENT_SHADER), name: fragmentName)
        defer { glDeleteShader(fs) }
        let p = glCreateProgram()
        glAttachShader(p, vs)
        glAttachShader(p, fs)
        glBindAttribLocation(p, 0, "a_position")
        glLinkProgram(p)
        var ok: GLint = 0
        glGetProgramiv(p, GLenum(GL_LINK_STATUS), &ok)
        guard ok == GL_TRUE else {
            let log = infoLog(p, isProgram: true)
            glDeleteProgram(p)
            LaminaLog.logger.error("program \(vertexName)+\(fragmentName) failed to link: \(log)")
            throw GPUError.programLink(vertex: vertexName, fragment: fragmentName, log: log)
        }
        gl.checkGLError("glLinkProgram(\(vertexName)+\(fragmentName))")
        return Program(gl: gl, name: p, label: vertexName + "+" + fragmentName)
    }

    private static func compile(_ source: String, stage: GLenum, name: String) throws -> GLuint {
        let shader = glCreateShader(stage)
        source.withCString { cs in
            var ptr: UnsafePointer<GLchar>? = cs
            var len = GLint(source.utf8.count)
            glShaderSource(shader, 1, &ptr, &len)
        }
        glCompileShader(shader)
        var ok: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
        guard ok == GL_TRUE else {
            let log = infoLog(shader, isProgram: false)
            glDeleteShader(shader)
            LaminaLog.logger.error("shader \(name) failed to compile: \(log)")
            throw GPUError.shaderCompile(name: name, log: GPUError.annotate(log: log, source: source))
        }
        // The compiler's warnings, if any.
        if LaminaLog.logger.logLevel <= .debug {
            let log = infoLog(shader, isProgram: false)
            if log != "(the driver gave no log)" { LaminaLog.logger.debug("shader \(name) compiled: \(log)") }
        }
        return shader
    }

    private static func infoLog(_ object: GLuint, isProgram: Bool) -> String {
        var length: GLint = 0
        if isProgram { glGetProgramiv(object, GLenum(GL_INFO_LOG_LENGTH), &length) } else { glGetShaderiv(object, GLenum(GL_INFO_LOG_LENGTH), &length) }
        guard length > 1 else { return "(the driver gave no log)" }
        var buffer = [CChar](repeating: 0, count: Int(length))
        var written: GLsizei = 0
        if isProgram { glGetProgramInfoLog(object, length, &written, &buffer) } else { glGetShaderInfoLog(object, length, &written, &buffer) }
        return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A program built from two shaders of `Shaders/`, cached for the device's lifetime
    /// (or until `purgeCaches()`).
    public func program(vertex: String, fragment: String) throws -> Program {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "program") }
        return try shaders.program(vertex: vertex, fragment: fragment)
    }
}
