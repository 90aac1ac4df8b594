import CGLES
import LaminaGeometry

/// One vertex of a batched quad, as `Shaders/batch.vert` reads it (60 bytes).
struct BatchVertex {
    /// Clip-space x, y, w (z is 0).
    var x, y, w: Float
    /// Texture coordinate, or the position inside the quad (rounded rectangles).
    var s, t: Float
    /// Texture quads: the clamp rectangle's max u, max v. Rounded rectangles: clip shape,
    /// corner bits. (Beside s and t: one attribute, one interpolated output with them —
    /// llvmpipe's vertex and triangle set-up cost grows with each.)
    var f0, f1: Float
    /// Premultiplied colour; texture quads: the tint times the alpha (read by the tinted and
    /// external programs only).
    var r, g, b, a: Float
    /// Texture quads: the clamp rectangle's min u, min v, the alpha, the flags (1: swap red
    /// and blue, 2: alpha reads as 1). Rounded rectangles: width, height, corner radius,
    /// border width (points).
    var p0, p1, p2, p3: Float
}

/// The programs of batched quads: one per kind of paint (a branching ubershader costs
/// every pixel of llvmpipe the dearest kind's work).
enum BatchProgram: Int, CaseIterable {
    case solid, texture, tintedTexture, roundedRect, external, shadow

    var fragment: String {
        switch self {
        case .solid: return "batch-solid.frag"
        case .texture: return "batch-texture.frag"
        case .tintedTexture: return "batch-texture-tinted.frag"
        case .roundedRect: return "batch-rrect.frag"
        case .external: return "batch-external.frag"
        case .shadow: return "batch-shadow.frag"
        }
    }
}

/// What a stencil clip's shape does to the stencil where it covers (where the stencil
/// equals the clip depth): nothing (an ordinary quad, tested against the clips), or push
/// and pop a clip.
enum ClipWrite: UInt8 {
    case none, increment, decrement
}

/// Everything a draw call fixes: quads that agree on all of it share one. Cheap to
/// compare (done once per quad).
struct BatchState: Equatable {
    var program: BatchProgram
    /// The texture's GL name (0: none).
    var texture: GLuint
    /// The sampler's key (`GPUDevice.sampler(min:mag:)`).
    var filters: Int
    var blend: Bool
    /// The stencil value quads are tested against (the clip depth when added).
    var clipDepth: Int32
    var clipWrite: ClipWrite
    /// Blended additively (`RenderPass.blendsAdditively`).
    var additive = false
}

/// Consecutive quads of one state: one draw call.
struct BatchRun {
    var state: BatchState
    /// Keeps the texture alive until the run is drawn.
    var texture: Texture?
    var firstQuad: Int
    var quadCount: Int
}

/// The quads a render pass has added but not yet drawn, and the GL objects they are drawn
/// with: one vertex array of Lamina's own (its element-array binding is vertex-array
/// state, so a host's vertex arrays are never touched), a vertex buffer given new storage
/// with each flush (orphaning: never waits for draws still queued on the old contents),
/// and a static index buffer (two triangles per quad, 16-bit indices). One per device:
/// only one pass has quads pending at a time (another pass's flushes them first).
final class QuadBatch {
    /// Quads per flush at most (16-bit indices: 4 vertices a quad).
    static let maxQuads = 16384

    // `@exclusivity(unchecked)`: written four times a quad, never held across a call (see
    // RenderNode's fields).
    @exclusivity(unchecked) var vertices: [BatchVertex] = []
    @exclusivity(unchecked) var runs: [BatchRun] = []
    @exclusivity(unchecked) var quadCount = 0
    /// The pass whose quads these are (nil: none pending).
    @exclusivity(unchecked) var owner: ObjectIdentifier?

    /// The program of each kind, resolved on first use (no string hashing per quad).
    var programs: [Program?] = Array(repeating: nil, count: BatchProgram.allCases.count)

    private(set) var vertexArray: VertexArray?
    private var vertexBuffer: Buffer?
    private var indexBuffer: Buffer?
    /// Quads the index buffer covers.
    private var indexCapacity = 0

    init() {
        vertices.reserveCapacity(1024)
        runs.reserveCapacity(64)
    }

    /// Forgets the pending quads, keeping the arrays' storage.
    func reset() {
        vertices.removeAll(keepingCapacity: true)
        runs.removeAll(keepingCapacity: true)
        quadCount = 0
        owner = nil
    }

    /// The vertex array (inside a scope), made on first use with its buffers. Leaves it bound.
    func bindVertexArray(_ gl: GLContext) -> GLuint {
        if let vao = vertexArray, !vao.isReleased {
            glBindVertexArray(vao.name)
            return vao.name
        }
        let vao = VertexArray(gl: gl)
        glBindVertexArray(vao.name)
        let vbo = [UInt8]().withUnsafeBytes { Buffer(gl: gl, target: GLenum(GL_ARRAY_BUFFER), bytes: $0, usage: GLenum(GL_STREAM_DRAW)) }
        let stride = GLsizei(MemoryLayout<BatchVertex>.stride)
        func attribute(_ index: GLuint, _ components: GLint, _ field: PartialKeyPath<BatchVertex>) {
            glEnableVertexAttribArray(index)
            glVertexAttribPointer(index, components, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride,
                                  UnsafeRawPointer(bitPattern: MemoryLayout<BatchVertex>.offset(of: field)!))
        }
        attribute(0, 3, \BatchVertex.x)
        attribute(1, 4, \BatchVertex.s)   // s, t, f0, f1
        attribute(2, 4, \BatchVertex.r)
        attribute(3, 4, \BatchVertex.p0)
        // Bound while the vertex array is: the binding is the vertex array's.
        let ibo = [UInt8]().withUnsafeBytes { Buffer(gl: gl, target: GLenum(GL_ELEMENT_ARRAY_BUFFER), bytes: $0) }
        gl.checkGLError("quad batch vertex array setup")
        vertexArray = vao
        vertexBuffer = vbo
        indexBuffer = ibo
        indexCapacity = 0
        return vao.name
    }

    /// Uploads the pending vertices (inside a scope, the vertex array bound), and grows the
    /// index buffer to cover them.
    func upload() {
        guard let vbo = vertexBuffer, let ibo = indexBuffer else { return }
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vbo.name)
        vertices.withUnsafeBytes { vbo.replace(with: $0, usage: GLenum(GL_STREAM_DRAW)) }
        if quadCount > indexCapacity {
            var capacity = max(256, indexCapacity)
            while capacity < quadCount { capacity *= 2 }
            capacity = min(capacity, QuadBatch.maxQuads)
            var indices = [UInt16]()
            indices.reserveCapacity(capacity * 6)
            for q in 0..<capacity {
                let v = UInt16(q * 4)
                indices.append(contentsOf: [v, v + 1, v + 2, v + 2, v + 1, v + 3])
            }
            glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), ibo.name)
            indices.withUnsafeBytes { ibo.replace(with: $0, usage: GLenum(GL_STATIC_DRAW)) }
            indexCapacity = capacity
        }
    }

    /// Frees the GL objects (inside a scope); the pending quads stay.
    func releaseObjects() {
        vertexArray?.release(); vertexBuffer?.release(); indexBuffer?.release()
        vertexArray = nil; vertexBuffer = nil; indexBuffer = nil
        indexCapacity = 0
        programs = Array(repeating: nil, count: BatchProgram.allCases.count)
    }

    /// Drops the wrappers without GL calls (the context is gone).
    func forgetObjects() {
        vertexArray = nil; vertexBuffer = nil; indexBuffer = nil
        indexCapacity = 0
        programs = Array(repeating: nil, count: BatchProgram.allCases.count)
        reset()
    }
}

/// Maps a quad's local points to clip space: `(x, y, 0, 1) · transform · pointsToClip`,
/// keeping x, y and w (the projection leaves z at 0). Nine multiplications a corner fewer
/// than a full matrix product per quad.
struct ClipMapping {
    var xx, xy, xw: Double   // the local x axis's contribution to clip x, y, w
    var yx, yy, yw: Double   // the local y axis's
    var ox, oy, ow: Double   // the origin's

    init(_ t: Transform3D, _ p: Transform3D) {
        func row(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> (Double, Double, Double) {
            (a * p.m11 + b * p.m21 + c * p.m31 + d * p.m41,
             a * p.m12 + b * p.m22 + c * p.m32 + d * p.m42,
             a * p.m14 + b * p.m24 + c * p.m34 + d * p.m44)
        }
        (xx, xy, xw) = row(t.m11, t.m12, t.m13, t.m14)
        (yx, yy, yw) = row(t.m21, t.m22, t.m23, t.m24)
        (ox, oy, ow) = row(t.m41, t.m42, t.m43, t.m44)
    }

    @inline(__always)
    func apply(_ x: Double, _ y: Double) -> (Float, Float, Float) {
        (Float(x * xx + y * yx + ox), Float(x * xy + y * yy + oy), Float(x * xw + y * yw + ow))
    }
}
