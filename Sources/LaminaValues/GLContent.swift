import LaminaGeometry
import Synchronization

/// How a GL layer's drawable is made (GLKView's `drawableDepthFormat`,
/// `drawableStencilFormat` and `drawableMultisample`).
public struct GLDrawableOptions: Sendable, Hashable {
    /// Depth and stencil storage beside the colour buffer.
    public enum DepthStencil: Sendable, Hashable {
        /// Colour only.
        case none
        /// A 24-bit depth buffer.
        case depth24
        /// A 24-bit depth buffer and an 8-bit stencil buffer.
        case depth24Stencil8
    }

    public var depthStencil: DepthStencil
    /// Samples per pixel: 1 (none) or 4 (GLKViewDrawableMultisample4X). A multisampled
    /// drawable is resolved before it is composited.
    public var samples: Int

    public init(depthStencil: DepthStencil = .none, samples: Int = 1) {
        self.depthStencil = depthStencil
        self.samples = samples
    }
}

/// What a GL layer's `draw(in:)` gets. On entry the renderer's context is current and
/// `framebuffer` is bound (draw and read), the viewport is the whole drawable, and every
/// other piece of state is GL's default (docs/gpu-content.md lists it): no program, no
/// vertex array, blending, depth, stencil and scissor tests off, texture unit 0 active.
/// Pixels are premultiplied RGBA, row 0 at the bottom (GL's convention): what is drawn at
/// the top of clip space shows at the top of the layer. The drawable keeps what was drawn
/// last time (it starts transparent, and after a resize); draw at least `dirtyRect`.
public struct GLDrawable: Sendable {
    /// The framebuffer to draw into (a GL name of the renderer's context).
    public let framebuffer: UInt32
    /// The drawable's size: the layer's bounds times its `contentsScale`, rounded up.
    public let pixelSize: PixelSize
    /// Pixels per point (the layer's `contentsScale`).
    public let scale: Double
    /// The pixels to draw, in GL window coordinates (origin bottom-left): the whole drawable,
    /// or the part `setNeedsDisplay(_:)` named.
    public let dirtyRect: PixelRect
    /// How the drawable was made.
    public let options: GLDrawableOptions
    /// The media time of the frame this draw is for, in seconds (`MediaClock`).
    public let mediaTime: Double
    /// Draws of this layer before this one.
    public let drawIndex: Int

    public init(framebuffer: UInt32, pixelSize: PixelSize, scale: Double, dirtyRect: PixelRect,
                options: GLDrawableOptions, mediaTime: Double, drawIndex: Int) {
        self.framebuffer = framebuffer; self.pixelSize = pixelSize; self.scale = scale
        self.dirtyRect = dirtyRect; self.options = options; self.mediaTime = mediaTime; self.drawIndex = drawIndex
    }
}

/// A GL layer's drawing as the renderers see it: what to call, on the renderer's thread,
/// with its context current. Made once per layer (`GLLayer`); thread-safe.
public final class GLContentSource: Sendable {
    /// Identity (never reused).
    public let id: UInt64
    /// The layer that shows it.
    public let layer: LayerID
    private let drawer: Locked<(@Sendable (GLDrawable) -> Void)?>
    private let draws = Atomic<Int>(0)
    private static let counter = Atomic<UInt64>(0)

    package init(layer: LayerID, drawer: (@Sendable (GLDrawable) -> Void)?) {
        id = GLContentSource.counter.add(1, ordering: .relaxed).newValue
        self.layer = layer
        self.drawer = Locked(drawer)
    }

    /// The function that draws (nil: nothing is drawn; the drawable is left as it was).
    package var draw: (@Sendable (GLDrawable) -> Void)? {
        get { drawer.withLock { $0 } }
        set { drawer.withLock { $0 = newValue } }
    }

    /// How many times a renderer has drawn it.
    public var drawCount: Int { draws.load(ordering: .relaxed) }

    /// Runs the drawing (a renderer, its context current and the drawable bound).
    package func run(_ drawable: GLDrawable) {
        draws.add(1, ordering: .relaxed)
        draw?(drawable)
    }
}

/// A GL layer's contents at one commit: which drawing, which generation of it (a new one
/// each time the layer is displayed), the drawable's size and options.
public struct GLContentRef: Sendable {
    public let source: GLContentSource
    /// Bumped by every display of the layer: a new generation is drawn again.
    public let generation: UInt64
    public let pixelSize: PixelSize
    public let scale: Double
    public let options: GLDrawableOptions
    /// The part to draw again, in the drawable's GL window coordinates (nil: all of it).
    public let dirtyRect: PixelRect?
    /// Drawn again at every frame the renderer composites (`GLLayer.isAsynchronous`).
    public let isAsynchronous: Bool

    package init(source: GLContentSource, generation: UInt64, pixelSize: PixelSize, scale: Double,
                 options: GLDrawableOptions, dirtyRect: PixelRect?, isAsynchronous: Bool) {
        self.source = source; self.generation = generation; self.pixelSize = pixelSize; self.scale = scale
        self.options = options; self.dirtyRect = dirtyRect; self.isAsynchronous = isAsynchronous
    }
}
