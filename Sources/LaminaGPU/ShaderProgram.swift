import CGLES
import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaValues

/// A program made from a user's GLSL ES 3.00 sources, with its uniforms resolved once and
/// set through typed setters (`ShaderValue`) and textures bound by name. Compile and link
/// errors carry the driver's log and the source lines it names.
///
/// The default vertex stage is Lamina's unit quad (`ShaderProgram.quadVertexSource`): it
/// gives the fragment stage `in vec2 lamina_uv` (0…1 over the quad, origin top-left), so a
/// program draws with `RenderPass.draw(with:in:transform:setUniforms:)` or `drawQuad(…)`.
public final class ShaderProgram {
    /// A uniform the program uses (an active uniform: one the compiler kept).
    public struct Uniform: Sendable, Equatable {
        public let name: String
        /// GL's type enum (GL_FLOAT_VEC2, GL_SAMPLER_2D, …).
        public let type: UInt32
        public let location: Int32
        /// Elements of an array (1 otherwise).
        public let count: Int
        /// The GLSL type's name ("vec2", "sampler2D", …).
        public var typeName: String { ShaderProgram.typeName(GLenum(type)) }
    }

    public let device: GPUDevice
    public let program: Program
    /// Active uniforms by name (arrays under their name without "[0]").
    public let uniforms: [String: Uniform]
    /// The texture unit each sampler uniform reads, given on first `set(_:texture:)`.
    private var units: [String: Int32] = [:]
    private var boundTextures: [Int32: Texture] = [:]

    /// The unit-quad vertex stage: `a_position` (0…1)², `u_transform` to clip space,
    /// `out vec2 lamina_uv`.
    public static let quadVertexSource = """
        #version 300 es
        precision highp float;
        layout(location = 0) in vec2 a_position;
        uniform mat4 u_transform;
        uniform vec4 u_texRect;
        out vec2 lamina_uv;
        void main() {
            lamina_uv = u_texRect.xy + a_position * u_texRect.zw;
            gl_Position = u_transform * vec4(a_position, 0.0, 1.0);
        }
        """

    /// Compiles and links. Throws `GPUError.shaderCompile`/`.programLink` with the driver's
    /// log and the offending source lines (numbered as in `fragmentSource`).
    public init(device: GPUDevice, fragmentSource: String, vertexSource: String = ShaderProgram.quadVertexSource,
                label: String = "shader") throws {
        self.device = device
        let program = try device.makeProgram(vertexSource: vertexSource, vertexName: label + " (vertex)",
                                             fragmentSource: fragmentSource, fragmentName: label + " (fragment)")
        self.program = program
        uniforms = program.activeUniforms
    }

    /// Frees the program. Safe to call twice.
    public func release() { program.release(); boundTextures = [:] }

    /// Why a value cannot be set.
    public struct UniformError: Error, CustomStringConvertible, Equatable {
        public let uniform: String
        public let reason: String
        public var description: String { "uniform '\(uniform)': \(reason)" }
    }

    /// Sets a uniform (the program is made current). A name the program does not use is
    /// ignored when `ignoringUnused` (the compiler may drop a uniform the shader never
    /// reads); a value of another type than the uniform's throws.
    public func set(_ name: String, _ value: ShaderValue, ignoringUnused: Bool = true) throws {
        guard let u = uniforms[name] else {
            if ignoringUnused { return }
            throw UniformError(uniform: name, reason: "the program has no active uniform of that name (active: \(uniforms.keys.sorted().joined(separator: ", ")))")
        }
        try device.withContext {
            use()
            try ShaderProgram.apply(value, to: u)
        }
    }

    /// Sets uniforms of the current program (inside a scope, the program bound: a render
    /// pass's `draw(with:…)` callback); names it does not use are skipped.
    public func applyUniforms(_ values: [(String, ShaderValue)]) throws {
        for (name, value) in values {
            guard let u = uniforms[name] else { continue }
            try ShaderProgram.apply(value, to: u)
        }
        use()
    }

    /// Sets a uniform while the program is current (inside a scope): `use()` first.
    static func apply(_ value: ShaderValue, to u: Uniform) throws {
        guard value.isValid else { throw UniformError(uniform: u.name, reason: "\(value) is not a valid value (every component finite, matrices 3×3 or 4×4)") }
        let f = value.components.map { GLfloat($0) }
        let t = GLenum(u.type)
        switch (value, t) {
        case (.float, GLenum(GL_FLOAT)): glUniform1f(u.location, f[0])
        case (.vec2, GLenum(GL_FLOAT_VEC2)): glUniform2f(u.location, f[0], f[1])
        case (.vec3, GLenum(GL_FLOAT_VEC3)): glUniform3f(u.location, f[0], f[1], f[2])
        case (.vec4, GLenum(GL_FLOAT_VEC4)): glUniform4f(u.location, f[0], f[1], f[2], f[3])
        case (.int(let i), GLenum(GL_INT)), (.int(let i), GLenum(GL_BOOL)), (.int(let i), GLenum(GL_SAMPLER_2D)):
            glUniform1i(u.location, GLint(clamping: i))
        case (.float(let x), GLenum(GL_BOOL)): glUniform1i(u.location, x != 0 ? 1 : 0)
        case (.mat3, GLenum(GL_FLOAT_MAT3)): glUniformMatrix3fv(u.location, 1, GLboolean(GL_FALSE), f)
        case (.mat4, GLenum(GL_FLOAT_MAT4)): glUniformMatrix4fv(u.location, 1, GLboolean(GL_FALSE), f)
        default:
            throw UniformError(uniform: u.name, reason: "a \(value.typeName) value for a \(typeName(t)) uniform")
        }
    }

    /// Binds `texture` for the sampler uniform `name` (a unit of its own, from 1 up: unit 0
    /// is Lamina's), with `filter` for both minification and magnification.
    public func set(_ name: String, texture: Texture, filter: TextureFilter = .linear) throws {
        guard let u = uniforms[name] else { return }
        guard GLenum(u.type) == GLenum(GL_SAMPLER_2D) else {
            throw UniformError(uniform: name, reason: "a texture for a \(u.typeName) uniform (a sampler2D is needed)")
        }
        guard texture.belongs(to: device), !texture.isReleased else {
            throw UniformError(uniform: name, reason: "the texture is released or of another device")
        }
        let unit = units[name] ?? Int32(units.count + 1)
        units[name] = unit
        boundTextures[unit] = texture
        samplerFilters[unit] = filter
        try device.withContext {
            use()
            glUniform1i(u.location, unit)
        }
    }
    private var samplerFilters: [Int32: TextureFilter] = [:]

    /// Makes the program current and binds its textures (inside a scope).
    func use() {
        if device.gl.currentProgram != program.name {
            glUseProgram(program.name)
            device.gl.currentProgram = program.name
        }
        for (unit, texture) in boundTextures {
            glActiveTexture(GLenum(GL_TEXTURE0 + unit))
            glBindTexture(GLenum(GL_TEXTURE_2D), texture.name)
            let f = samplerFilters[unit] ?? .linear
            glBindSampler(GLuint(unit), device.sampler(min: f, mag: f).name)
        }
        if !boundTextures.isEmpty { glActiveTexture(GLenum(GL_TEXTURE0)) }
    }

    static func typeName(_ t: GLenum) -> String {
        switch Int32(t) {
        case GL_FLOAT: return "float"
        case GL_FLOAT_VEC2: return "vec2"
        case GL_FLOAT_VEC3: return "vec3"
        case GL_FLOAT_VEC4: return "vec4"
        case GL_INT: return "int"
        case GL_INT_VEC2: return "ivec2"
        case GL_INT_VEC3: return "ivec3"
        case GL_INT_VEC4: return "ivec4"
        case GL_BOOL: return "bool"
        case GL_FLOAT_MAT2: return "mat2"
        case GL_FLOAT_MAT3: return "mat3"
        case GL_FLOAT_MAT4: return "mat4"
        case GL_SAMPLER_2D: return "sampler2D"
        case GL_SAMPLER_3D: return "sampler3D"
        case GL_SAMPLER_CUBE: return "samplerCube"
        default: return "type 0x" + String(t, radix: 16)
        }
    }
}

extension GPUError {
    /// The source lines a driver's log names ("0:12(5): error …" as Mesa writes, "ERROR:
    /// 0:12: …" as ANGLE and others, "0(12) : error …" as NVIDIA), numbered, with a line
    /// either side.
    static func annotate(log: String, source: String) -> String {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        var named: [Int] = []
        for entry in log.split(separator: "\n") {
            var s = Substring(entry.trimmed)
            if s.hasPrefix("ERROR:") || s.hasPrefix("WARNING:") { s = s.drop(while: { $0 != ":" }).dropFirst().drop(while: { $0 == " " }) }
            // <string>:<line> or <string>(<line>)
            let digits = s.prefix(while: \.isNumber)
            guard !digits.isEmpty else { continue }
            let rest = s.dropFirst(digits.count)
            guard let sep = rest.first, sep == ":" || sep == "(" else { continue }
            let number = rest.dropFirst().prefix(while: \.isNumber)
            if let n = Int(number), n >= 1, n <= lines.count, !named.contains(n) { named.append(n) }
        }
        guard !named.isEmpty else { return log }
        var out = log.trimmed + "\nSource:"
        var shown = Set<Int>()
        for n in named.sorted() {
            for k in max(1, n - 1)...min(lines.count, n + 1) where shown.insert(k).inserted {
                out += "\n" + (k == n ? "> " : "  ") + cFormat("%4d | ", k) + lines[k - 1]
            }
        }
        return out
    }
}
