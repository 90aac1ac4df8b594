import LaminaGeometry
@_spi(LaminaInternal) import LaminaValues

/// A layer whose content the program draws with its own OpenGL ES calls — Core
/// Animation's `CAOpenGLLayer` and the layer behind GLKit's `GLKView`.
///
/// `draw(in:)` runs where the compositor's GL context lives — the main thread, or the
/// render thread when there is one — with that context current, a framebuffer of the
/// layer's pixel size (bounds × `contentsScale`) bound and the viewport set (the entry
/// state is listed in docs/gpu-content.md). It runs on demand: at the first display,
/// after `setNeedsDisplay()` (at the end of the turn), `displayIfNeeded()` or
/// `displayNow()` (the draw happens when the commit reaches the compositor: with
/// `Transaction.flush()` or `View.displayNow()` the new pixels are on the target when it
/// returns) — or at every frame the host composites while `isAsynchronous` is set. The
/// drawing is the layer's contents, composited like any other (transforms, opacity, masks,
/// clipping, `contentsGravity`, `contentsCenter`); no pixel goes through the CPU. A bounds
/// change redraws (`needsDisplayOnBoundsChange` is on by default) into a new drawable.
///
/// `draw(in:)` is `nonisolated`: it may run on another thread than the layer's, so it may
/// read only what it captured or owns (its own GL objects, values behind a lock), never
/// the layer tree. Whatever GL state it leaves, Lamina's next pass is unaffected.
@MainActor
open class GLLayer: Layer {
    public required init() {
        super.init()
        needsDisplayOnBoundsChange = true
        source.draw = { [weak self] drawable in self?.draw(in: drawable) }
        setNeedsDisplay()
    }

    /// Draws the layer's picture with GL. The default calls `drawHandler`. Override it to
    /// draw; never call it yourself (invalidate with `setNeedsDisplay()`).
    nonisolated open func draw(in drawable: GLDrawable) {
        handler.withLock { $0 }?(drawable)
    }

    /// What the default `draw(in:)` calls (GLKView's delegate `glkView(_:drawIn:)`); it
    /// runs on the compositor's thread (see the class's description).
    nonisolated public var drawHandler: (@Sendable (GLDrawable) -> Void)? {
        get { handler.withLock { $0 } }
        set { handler.withLock { $0 = newValue } }
    }
    private nonisolated let handler = Locked<(@Sendable (GLDrawable) -> Void)?>(nil)

    /// The drawing as the renderers see it (one per layer, for its life).
    package private(set) lazy var source = GLContentSource(layer: id, drawer: nil)

    /// Draw at every frame the host composites (`CAOpenGLLayer.isAsynchronous`): the host
    /// keeps compositing while a layer that is shown has it set.
    public var isAsynchronous = false {
        didSet { if isAsynchronous != oldValue { setNeedsDisplay() } }
    }

    /// Depth, stencil and multisampling of the drawable (GLKView's `drawableDepthFormat`,
    /// `drawableStencilFormat`, `drawableMultisample`). A change makes a new drawable.
    public var drawableOptions = GLDrawableOptions() {
        didSet { if drawableOptions != oldValue { setNeedsDisplay() } }
    }

    /// The drawable's size in pixels at the last display (zero before the first).
    public private(set) var drawableSize = PixelSize(width: 0, height: 0)

    /// How many times the compositors ran `draw(in:)` for this layer (every compositor
    /// showing it draws it).
    public var drawCount: Int { source.drawCount }

    private var generation: UInt64 = 0
    private var content: GLContentRef?

    override var glContentReference: GLContentRef? { content }

    /// Asks the compositors for a new drawing (a new generation of the contents): the
    /// draw itself runs where they are, when this commit reaches them.
    open override func display() throws {
        let reasons = pendingDisplayReasons
        let requested = dirtyRect
        let scale = contentsScale > 0 && contentsScale.isFinite ? contentsScale : 1
        let maximum = transactionContext.maximumContentSide ?? Int(Int32.max)
        guard let size = PixelSize.checked(covering: bounds.size, scale: scale) else {
            throw DisplayError.backingStoreSizeNotRepresentable(layer: name ?? String(describing: type(of: self)),
                                                                bounds: bounds.size, contentsScale: scale, maximum: maximum)
        }
        guard size.width <= maximum, size.height <= maximum else {
            throw DisplayError.backingStoreTooLarge(layer: name ?? String(describing: type(of: self)), size: size, maximum: maximum)
        }
        generation += 1
        drawableSize = size
        var dirty: PixelRect?
        if let r = requested, size == content?.pixelSize {
            // Bounds coordinates (y down) to the drawable's GL window coordinates (y up), rounded out.
            let b = bounds.origin
            let x0 = max(0, Int(((r.minX - b.x) * scale).rounded(.down))), x1 = min(size.width, Int(((r.maxX - b.x) * scale).rounded(.up)))
            let y0 = max(0, Int(((r.minY - b.y) * scale).rounded(.down))), y1 = min(size.height, Int(((r.maxY - b.y) * scale).rounded(.up)))
            if x1 > x0, y1 > y0 { dirty = PixelRect(x: x0, y: size.height - y1, width: x1 - x0, height: y1 - y0) }
        }
        content = size.width > 0 && size.height > 0
            ? GLContentRef(source: source, generation: generation, pixelSize: size, scale: scale, options: drawableOptions,
                           dirtyRect: dirty, isAsynchronous: isAsynchronous)
            : nil
        displayCount += 1
        let record = DisplayRecord(layer: name ?? String(describing: type(of: self)), layerID: id, reasons: reasons,
                                   rect: requested ?? bounds, pixelRect: dirty ?? PixelRect(size: size), uploadedBytes: 0)
        lastDisplay = record
        transactionContext.noteDisplay(record)
        changed(.contents)
    }
}
