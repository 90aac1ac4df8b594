import LaminaGeometry
import LaminaModel
@_spi(LaminaInternal) import LaminaValues

/// A view that draws its content with OpenGL ES (GLKit's `GLKView`), backed by a `GLLayer`.
///
/// Seed 002: "if you draw using OpenGL ES and the GLKView class, GLKit configures the
/// underlying OpenGL ES context appropriately for your view before calling this method …
/// so you can simply issue whatever OpenGL ES commands you need". Override `draw(in:)` (or
/// set `drawHandler`, GLKView's delegate): the compositor's context is current and a
/// framebuffer of the view's pixel size is bound, the viewport set. It runs on demand —
/// when first shown, after `setNeedsDisplay()`, and synchronously with `displayNow()`
/// (GLKView's `display`: the new pixels are on the window's target when it returns) — or
/// at every frame while `isAsynchronous`. It runs on the compositor's thread (the render
/// thread when the window has one): it may touch only what it owns, never the view tree.
@MainActor
open class GLView: View {
    open override class var layerClass: Layer.Type { GLLayer.self }

    /// The layer the view draws into.
    public var glLayer: GLLayer { layer as! GLLayer }

    public override init(frame: Rect = .zero) {
        super.init(frame: frame)
        glLayer.drawHandler = { [weak self] drawable in self?.draw(in: drawable) }
    }

    /// Draws the view with GL. The default calls `drawHandler`.
    nonisolated open func draw(in drawable: GLDrawable) {
        handler.withLock { $0 }?(drawable)
    }

    /// What the default `draw(in:)` calls (GLKView's `glkView(_:drawIn:)`), on the
    /// compositor's thread.
    nonisolated public var drawHandler: (@Sendable (GLDrawable) -> Void)? {
        get { handler.withLock { $0 } }
        set { handler.withLock { $0 = newValue } }
    }
    private nonisolated let handler = Locked<(@Sendable (GLDrawable) -> Void)?>(nil)

    /// Depth, stencil and multisampling of the drawable (`drawableDepthFormat`,
    /// `drawableStencilFormat`, `drawableMultisample`).
    public var drawableOptions: GLDrawableOptions {
        get { glLayer.drawableOptions }
        set { glLayer.drawableOptions = newValue }
    }

    /// Draw at every frame the window composites (as a `GLKViewController` does).
    public var isAsynchronous: Bool {
        get { glLayer.isAsynchronous }
        set { glLayer.isAsynchronous = newValue }
    }

    /// The drawable's size in pixels (GLKView's `drawableWidth`/`drawableHeight`).
    public var drawableSize: PixelSize { glLayer.drawableSize }

    /// How many times the view's GL code ran.
    public var drawCount: Int { glLayer.drawCount }
}
