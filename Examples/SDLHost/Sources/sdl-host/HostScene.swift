import CSDL2
import Foundation

/// The host program's own OpenGL ES 3 drawing, written as any GL program would, knowing
/// nothing of Lamina: a vertical gradient over the whole window and a triangle turning
/// about a fixed centre, with the host's own programs, buffers and state. It keeps some
/// state set between frames on purpose (blending, a depth test, its program and vertex
/// array, unpack alignment 1, texture unit 2) and checks after Lamina ran that all of it
/// is still as it left it.
final class HostScene {
    /// The gradient's colours at the top and bottom rows, and the triangle's colour.
    static let top: (Float, Float, Float) = (0.10, 0.15, 0.40)
    static let bottom: (Float, Float, Float) = (0.50, 0.20, 0.30)
    static let triangle: (Float, Float, Float) = (1.0, 0.6, 0.1)

    let width: Int32, height: Int32
    /// The triangle's centre in window pixels (top-left origin) and its radius.
    let centre: (x: Double, y: Double)
    let radius: Double = 70
    var angle: Float = 0
    /// A click outside the HUD pauses the turning (the host's own input).
    var paused = false

    private var gradientProgram: GLuint = 0
    private var triangleProgram: GLuint = 0
    private var angleLocation: GLint = -1
    private var gradientArray: GLuint = 0, gradientBuffer: GLuint = 0
    private var triangleArray: GLuint = 0, triangleBuffer: GLuint = 0
    private var hostTexture: GLuint = 0
    private var hostSampler: GLuint = 0
    private var hostRenderbuffer: GLuint = 0

    init(width: Int32, height: Int32) throws {
        self.width = width; self.height = height
        centre = (Double(width) * 0.72, Double(height) * 0.5)
        gradientProgram = try HostScene.link(
            vertex: """
            #version 300 es
            layout(location = 0) in vec2 position;
            layout(location = 1) in vec3 color;
            out vec3 v_color;
            void main() { v_color = color; gl_Position = vec4(position, 0.5, 1.0); }
            """,
            fragment: """
            #version 300 es
            precision mediump float;
            in vec3 v_color;
            out vec4 o;
            void main() { o = vec4(v_color, 1.0); }
            """)
        triangleProgram = try HostScene.link(
            vertex: """
            #version 300 es
            layout(location = 0) in vec2 offset;
            uniform float angle;
            uniform vec2 centre;
            uniform vec2 scale;
            void main() {
                vec2 p = mat2(cos(angle), sin(angle), -sin(angle), cos(angle)) * offset;
                gl_Position = vec4(centre + p * scale, 0.0, 1.0);
            }
            """,
            fragment: """
            #version 300 es
            precision mediump float;
            uniform vec3 color;
            out vec4 o;
            void main() { o = vec4(color, 1.0); }
            """)
        angleLocation = glGetUniformLocation(triangleProgram, "angle")

        // Gradient: a full-window strip, colour per vertex (top rows first in the picture).
        let t = HostScene.top, b = HostScene.bottom
        let gradient: [Float] = [-1, -1, b.0, b.1, b.2, 1, -1, b.0, b.1, b.2, -1, 1, t.0, t.1, t.2, 1, 1, t.0, t.1, t.2]
        (gradientArray, gradientBuffer) = HostScene.vertexArray(gradient, stride: 20, attributes: [(0, 2, 0), (1, 3, 8)])

        // Triangle: three corners around its centre, `radius` pixels out.
        var corners: [Float] = []
        for i in 0..<3 {
            let a = Double(i) * 2 * Double.pi / 3 - Double.pi / 2
            corners += [Float(cos(a) * radius), Float(sin(a) * radius)]
        }
        (triangleArray, triangleBuffer) = HostScene.vertexArray(corners, stride: 8, attributes: [(0, 2, 0)])
        glUseProgram(triangleProgram)
        glUniform2f(glGetUniformLocation(triangleProgram, "centre"),
                    Float(centre.x / Double(width) * 2 - 1), Float(1 - centre.y / Double(height) * 2))
        glUniform2f(glGetUniformLocation(triangleProgram, "scale"), 2 / Float(width), 2 / Float(height))
        let c = HostScene.triangle
        glUniform3f(glGetUniformLocation(triangleProgram, "color"), c.0, c.1, c.2)

        // A texture the host keeps bound on units 0 and 2 with a sampler on unit 0 (it would
        // sample them in a real scene), and a renderbuffer it keeps bound.
        glGenSamplers(1, &hostSampler)
        glSamplerParameteri(hostSampler, GLenum(GL_TEXTURE_MAG_FILTER), GL_NEAREST)
        glGenRenderbuffers(1, &hostRenderbuffer)
        glGenTextures(1, &hostTexture)
        glActiveTexture(GLenum(GL_TEXTURE2))
        glBindTexture(GLenum(GL_TEXTURE_2D), hostTexture)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        let texel: [UInt8] = [255, 255, 255]
        glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGB8, 1, 1, 0, GLenum(GL_RGB), GLenum(GL_UNSIGNED_BYTE), texel)
    }

    /// The host's persistent state, set once per frame before it draws: little of it is
    /// GL's default, so that Lamina cannot get away with assuming defaults or with not
    /// restoring.
    private func setState() {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        glViewport(0, 0, width, height)
        glEnable(GLenum(GL_BLEND))
        glBlendFuncSeparate(GLenum(GL_SRC_ALPHA), GLenum(GL_ONE_MINUS_SRC_ALPHA), GLenum(GL_ONE), GLenum(GL_ZERO))
        glBlendEquationSeparate(GLenum(GL_FUNC_ADD), GLenum(GL_MAX))
        glEnable(GLenum(GL_DEPTH_TEST))
        glDepthFunc(GLenum(GL_LEQUAL))
        glDisable(GLenum(GL_SCISSOR_TEST))
        glScissor(3, 5, 7, 11)
        glDisable(GLenum(GL_STENCIL_TEST))
        glStencilFuncSeparate(GLenum(GL_FRONT), GLenum(GL_LEQUAL), 3, 0x0f)
        glStencilFuncSeparate(GLenum(GL_BACK), GLenum(GL_GREATER), 5, 0xf0)
        glStencilOpSeparate(GLenum(GL_FRONT), GLenum(GL_REPLACE), GLenum(GL_INCR), GLenum(GL_INVERT))
        glStencilMask(0x3c)
        glDisable(GLenum(GL_CULL_FACE))
        glCullFace(GLenum(GL_FRONT))
        glColorMask(1, 1, 1, 1)
        glClearColor(0, 0, 0, 1)
        glClearDepthf(1)
        glClearStencil(7)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 2)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), hostRenderbuffer)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), hostTexture)
        glBindSampler(0, hostSampler)
        glActiveTexture(GLenum(GL_TEXTURE2))
        glBindTexture(GLenum(GL_TEXTURE_2D), hostTexture)
    }

    /// Draws the frame: gradient, then the triangle at `angle`. Leaves the triangle's
    /// program and vertex array bound, as a host's renderer would.
    func draw() {
        setState()
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT))
        glUseProgram(gradientProgram)
        glBindVertexArray(gradientArray)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        glUseProgram(triangleProgram)
        glUniform1f(angleLocation, angle)
        glBindVertexArray(triangleArray)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
        expected = fingerprint()
        glEnable(0xBEEF)   // and an error left pending: Lamina must leave it to the host
    }

    private var expected: [Int] = []

    /// The host's state as its own queries read it.
    private func fingerprint() -> [Int] {
        func int(_ name: Int32) -> Int { var v: GLint = 0; glGetIntegerv(GLenum(name), &v); return Int(v) }
        func on(_ cap: Int32) -> Int { Int(glIsEnabled(GLenum(cap))) }
        var viewport: [GLint] = [0, 0, 0, 0]
        glGetIntegerv(GLenum(GL_VIEWPORT), &viewport)
        var mask: [GLboolean] = [0, 0, 0, 0]
        glGetBooleanv(GLenum(GL_COLOR_WRITEMASK), &mask)
        var scissor: [GLint] = [0, 0, 0, 0]
        glGetIntegerv(GLenum(GL_SCISSOR_BOX), &scissor)
        let active = int(GL_ACTIVE_TEXTURE)
        glActiveTexture(GLenum(GL_TEXTURE0))
        let unit0 = [int(GL_TEXTURE_BINDING_2D), int(GL_SAMPLER_BINDING)]
        glActiveTexture(GLenum(active))
        let names = [GL_CURRENT_PROGRAM, GL_VERTEX_ARRAY_BINDING, GL_ARRAY_BUFFER_BINDING, GL_DRAW_FRAMEBUFFER_BINDING,
                     GL_READ_FRAMEBUFFER_BINDING, GL_RENDERBUFFER_BINDING, GL_BLEND_SRC_RGB, GL_BLEND_DST_RGB,
                     GL_BLEND_SRC_ALPHA, GL_BLEND_DST_ALPHA, GL_BLEND_EQUATION_RGB, GL_BLEND_EQUATION_ALPHA, GL_DEPTH_FUNC,
                     GL_STENCIL_FUNC, GL_STENCIL_REF, GL_STENCIL_VALUE_MASK, GL_STENCIL_FAIL, GL_STENCIL_PASS_DEPTH_FAIL,
                     GL_STENCIL_PASS_DEPTH_PASS, GL_STENCIL_WRITEMASK, GL_STENCIL_BACK_FUNC, GL_STENCIL_BACK_REF,
                     GL_STENCIL_BACK_VALUE_MASK, GL_STENCIL_BACK_WRITEMASK, GL_STENCIL_CLEAR_VALUE, GL_CULL_FACE_MODE,
                     GL_UNPACK_ALIGNMENT, GL_UNPACK_ROW_LENGTH, GL_PACK_ALIGNMENT, GL_ACTIVE_TEXTURE, GL_TEXTURE_BINDING_2D,
                     GL_SAMPLER_BINDING, GL_PIXEL_UNPACK_BUFFER_BINDING, GL_PIXEL_PACK_BUFFER_BINDING]
        return names.map(int) + [on(GL_BLEND), on(GL_DEPTH_TEST), on(GL_SCISSOR_TEST), on(GL_STENCIL_TEST), on(GL_CULL_FACE)]
            + viewport.map(Int.init) + scissor.map(Int.init) + mask.map(Int.init) + unit0
    }

    /// Whether the host's state is as `draw()` left it, with its pending error still
    /// pending (call after Lamina ran; takes the error).
    func stateIsIntact() -> Bool {
        let error = glGetError()
        return fingerprint() == expected && error == GLenum(GL_INVALID_ENUM) && glGetError() == GLenum(GL_NO_ERROR)
    }

    /// A vertex array over a static buffer of `data`: attributes (index, components, byte offset).
    private static func vertexArray(_ data: [Float], stride: Int32, attributes: [(GLuint, GLint, Int)]) -> (GLuint, GLuint) {
        var array: GLuint = 0, buffer: GLuint = 0
        glGenVertexArrays(1, &array)
        glGenBuffers(1, &buffer)
        glBindVertexArray(array)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), buffer)
        glBufferData(GLenum(GL_ARRAY_BUFFER), data.count * 4, data, GLenum(GL_STATIC_DRAW))
        for (index, components, offset) in attributes {
            glEnableVertexAttribArray(index)
            glVertexAttribPointer(index, components, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, UnsafeRawPointer(bitPattern: offset))
        }
        return (array, buffer)
    }

    private static func link(vertex: String, fragment: String) throws -> GLuint {
        func compile(_ type: Int32, _ source: String) throws -> GLuint {
            let s = glCreateShader(GLenum(type))
            source.withCString { cs in var p: UnsafePointer<GLchar>? = cs; glShaderSource(s, 1, &p, nil) }
            glCompileShader(s)
            var ok: GLint = 0
            glGetShaderiv(s, GLenum(GL_COMPILE_STATUS), &ok)
            guard ok == GL_TRUE else { throw HostError("a host shader failed to compile") }
            return s
        }
        let p = glCreateProgram()
        let vs = try compile(GL_VERTEX_SHADER, vertex), fs = try compile(GL_FRAGMENT_SHADER, fragment)
        glAttachShader(p, vs); glAttachShader(p, fs)
        glLinkProgram(p)
        glDeleteShader(vs); glDeleteShader(fs)
        var ok: GLint = 0
        glGetProgramiv(p, GLenum(GL_LINK_STATUS), &ok)
        guard ok == GL_TRUE else { throw HostError("a host program failed to link") }
        return p
    }
}

struct HostError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
