import LaminaValues
import CGLES
import LaminaGeometry

// Clips: a stencil level per nested (rounded) rectangle.
extension RenderPass {
    /// Restricts later drawing to a (rounded) rectangle under `transform`, intersected with
    /// the clips already pushed. Exact under rotation and perspective (a stencil, not a
    /// scissor). Each push needs the matching `popClip` with the same shape.
    /// At most `maxClipDepth` clips nest (the stencil's 8 bits); one more throws.
    public func pushClip(_ rect: Rect, cornerRadius: Double = 0, transform: Transform3D = .identity) throws {
        try pushClip(rect, corners: CornerShape(radius: cornerRadius), transform: transform)
    }

    /// `pushClip(_:cornerRadius:transform:)` for any corner shape (some corners rounded,
    /// continuous corners).
    public func pushClip(_ rect: Rect, corners: CornerShape, transform: Transform3D = .identity) throws {
        try claimBatch("pushClip(_:)")
        guard clipDepth < RenderPass.maxClipDepth else { throw RenderPassError.clipsTooDeep(limit: RenderPass.maxClipDepth) }
        prepare()
        try target.prepareStencil()
        restoreState()   // preparing the stencil may have rebound the framebuffer
        if !stencilCleared {
            // Inside the target's scissor: a host's stencil outside the region is kept. The
            // quads pending are all outside any clip (no clip was pushed yet): they do not
            // read the stencil, so clearing it before they are drawn changes nothing.
            glClearStencil(0)
            glClear(GLbitfield(GL_STENCIL_BUFFER_BIT))
            stencilCleared = true
        }
        try appendClipShape(rect, corners: corners, transform: transform, write: .increment)
        clipDepth += 1
    }

    /// Removes the innermost clip; pass the shape given to `pushClip`.
    public func popClip(_ rect: Rect, cornerRadius: Double = 0, transform: Transform3D = .identity) throws {
        try popClip(rect, corners: CornerShape(radius: cornerRadius), transform: transform)
    }

    /// Removes the innermost clip pushed with `pushClip(_:corners:transform:)`.
    public func popClip(_ rect: Rect, corners: CornerShape, transform: Transform3D = .identity) throws {
        try claimBatch("popClip(_:)")
        guard clipDepth > 0 else { throw RenderPassError.popClipWithoutPush }
        try appendClipShape(rect, corners: corners, transform: transform, write: .decrement)
        clipDepth -= 1
    }

    /// Nested clips a pass holds at most: the stencil values 1…255 of an 8-bit stencil.
    public static let maxClipDepth = 255

    /// The shape, drawn into the stencil only where the stencil equals the current depth.
    private func appendClipShape(_ rect: Rect, corners: CornerShape, transform: Transform3D, write: ClipWrite) throws {
        let state = BatchState(program: .roundedRect, texture: 0, filters: 0, blend: true,
                               clipDepth: Int32(clipDepth), clipWrite: write)
        try appendQuad(rect, transform, state, nil, coords: (0, 0, 1, 1), color: (0, 0, 0, 0),
                       params: (Float(abs(rect.size.width)), Float(abs(rect.size.height)), Float(max(0, corners.radius)), 0),
                       zw: (1, Self.cornerBits(corners, of: rect)))
    }

    /// `batch-rrect.frag`'s corner bits: the corners left square (in the quad's coordinates:
    /// a negative width or height mirrors the rectangle) and whether they are continuous.
    static func cornerBits(_ corners: CornerShape, of rect: Rect) -> Float {
        let square = CornerMask.all.subtracting(corners.corners).mirrored(x: rect.size.width < 0, y: rect.size.height < 0)
        return Float(Int(square.rawValue) | (corners.curve == .continuous ? 16 : 0))
    }

    /// Inside clips, draw only where the stencil equals the depth; outside, no test.
    func applyStencilTest() {
        if clipDepth > 0 {
            glEnable(GLenum(GL_STENCIL_TEST))
            glStencilFunc(GLenum(GL_EQUAL), GLint(clipDepth), 0xff)
            glStencilOp(GLenum(GL_KEEP), GLenum(GL_KEEP), GLenum(GL_KEEP))
        } else {
            glDisable(GLenum(GL_STENCIL_TEST))
        }
    }
}
