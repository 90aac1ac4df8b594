import LaminaGeometry
import LaminaGPU
import LaminaValues

/// GL-drawn contents (`GLLayer`): the layer's own GL code renders into a drawable of the
/// compositor's device, on the compositor's thread, when the layer was displayed (a new
/// generation of its `GLContentRef`) or at every frame (`isAsynchronous`). The drawable's
/// texture is then drawn as the layer's contents, as any other (`ContentsItem`: gravity,
/// `contentsRect`, `contentsCenter`, masks and clips apply), sampled upside down (row 0 is
/// the picture's bottom). Drawing happens when a commit's update is applied or before a
/// frame is built: never while a pass is open.
struct GLDrawableState {
    var target: GLDrawableTarget
    /// The generation of the layer's contents last drawn.
    var generation: UInt64
}

extension ContentCache {
    /// Draws `ref` into its drawable if it is of a generation not drawn yet (or `always`):
    /// made, or made again at a new size or with new options, first. Inside a scope.
    func drawGL(_ ref: GLContentRef, mediaTime: Double, always: Bool = false) throws {
        let id = ref.source.id
        var state = glDrawables[id]
        if let s = state, s.target.pixelSize != ref.pixelSize || s.target.options != ref.options {
            s.target.release()
            glDrawables[id] = nil
            state = nil
        }
        if let s = state, s.generation == ref.generation, !always { return }
        let target = try state?.target ?? GLDrawableTarget(device: device, pixelSize: ref.pixelSize, options: ref.options)
        let whole = PixelRect(size: ref.pixelSize)
        let dirty = state == nil || always ? whole : (ref.dirtyRect ?? whole)
        let drawable = GLDrawable(framebuffer: target.framebufferName, pixelSize: ref.pixelSize, scale: ref.scale,
                                  dirtyRect: dirty, options: ref.options, mediaTime: mediaTime, drawIndex: target.drawCount)
        glDrawables[id] = GLDrawableState(target: target, generation: ref.generation)
        let errors = try target.draw { _ in ref.source.run(drawable) }
        if !errors.isEmpty {
            let codes = errors.map { "0x" + String($0, radix: 16) }.joined(separator: ", ")
            LaminaLog.logger.warning("GL layer \(ref.source.layer)'s draw(in:) left GL errors pending: \(codes) (cleared; check the GL calls of that draw)")
        }
    }
}

extension RenderTree {
    /// Notes a GL content the tree shows (or stops showing, `ref` nil) for layer `id`:
    /// new generations are drawn at the next `takeGLDraws()`; asynchronous ones every frame.
    func noteGL(old: ContentRef?, new: ContentRef?) {
        if case .gl(let o)? = old { glAsynchronous[o.source.id] = nil }
        guard case .gl(let g)? = new else { return }
        glToDraw.append(g)
        if g.isAsynchronous { glAsynchronous[g.source.id] = g }
    }

    /// GL contents with a generation to draw, since the last call.
    func takeGLDraws() -> [GLContentRef] {
        defer { glToDraw = [] }
        return glToDraw.filter { contentUsers[.gl($0.source.id)] != nil }
    }

    /// Marks the layers of asynchronous GL contents as redrawn (their pixels change at
    /// every frame) and returns those contents.
    func redrawAsynchronousGL() -> [GLContentRef] {
        var drawn: [GLContentRef] = []
        for (id, g) in glAsynchronous {
            guard contentUsers[.gl(id)] != nil, let node = nodes[g.source.layer], node.isInTree else {
                glAsynchronous[id] = nil
                continue
            }
            node.changes.insert(.pixels)
            pendingNodes.append(node)
            drawn.append(g)
        }
        return drawn
    }
}
