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

    /// Restricts later drawing to an axis-aligned rectangle by the scissor, without a
    /// stencil: the pixels whose centres lie inside `rect` under `transform` (a scale and a
    /// translation), within the pass's scissor. Edges are half-open in the target's pixels
    /// (row 0 at the top, whatever the framebuffer's orientation): a pixel whose centre lies
    /// on the left or top edge is kept, one on the right or bottom edge is not; elsewhere it
    /// keeps the pixels `pushClip` keeps for the same rectangle (whose shader decides a
    /// centre on an edge by rounding). A target drawn with scissor clips alone needs no
    /// stencil buffer. It must be the outermost clip (`pushClip` may nest inside it); end
    /// it with `popScissorClip()`.
    public func pushScissorClip(_ rect: Rect, transform: Transform3D = .identity) throws {
        guard !isSubmitted else { throw RenderPassError.usedAfterSubmit(operation: "pushScissorClip") }
        guard clipDepth == 0, clipScissor == nil else { throw RenderPassError.scissorClipNotOutermost }
        flush()
        prepare()
        let a = transform.apply(to: Point(x: rect.minX, y: rect.minY)), b = transform.apply(to: Point(x: rect.maxX, y: rect.maxY))
        let scale = target.scale, size = target.pixelSize
        // The first pixel whose centre is at or past `v` points, within a pixel of the target.
        func first(_ v: Double, _ limit: Int) -> Int {
            let p = (v * scale - 0.5).rounded(.up)
            return p.isNaN ? 0 : Int(max(-1, min(Double(limit + 1), p)))
        }
        let x0 = first(min(a.x, b.x), size.width), x1 = first(max(a.x, b.x), size.width)
        let y0 = first(min(a.y, b.y), size.height), y1 = first(max(a.y, b.y), size.height)
        let own = target.glScissor(for: PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0)))
        let s = scissorArea
        let cx0 = max(own.x, s.x), cy0 = max(own.y, s.y)
        let cx1 = min(own.x + own.width, s.x + s.width), cy1 = min(own.y + own.height, s.y + s.height)
        let c = GLViewport(x: cx0, y: cy0, width: max(0, cx1 - cx0), height: max(0, cy1 - cy0))
        clipScissor = c
        glScissor(c.x, c.y, c.width, c.height)
    }

    /// Ends the clip of `pushScissorClip` (every clip pushed inside it popped first).
    public func popScissorClip() throws {
        guard !isSubmitted else { throw RenderPassError.usedAfterSubmit(operation: "popScissorClip") }
        guard clipScissor != nil else { throw RenderPassError.popClipWithoutPush }
        guard clipDepth == 0 else { throw RenderPassError.clipOpenAtScissorChange }
        flush()
        prepare()
        clipScissor = nil
        let s = scissorArea
        glScissor(s.x, s.y, s.width, s.height)
        // A stencil cleared inside the clip alone: cleared again at the next push.
        stencilCleared = false
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
