import LaminaGeometry
import LaminaGPU
import LaminaValues

/// What one frame draws, worked out from the render tree without a GPU (WebRender's `Frame`):
/// the damage region, the offscreen work as render tasks in dependency order, and the
/// target's pass as resolved draws per damage rectangle. The executor runs it against GL
/// without reading the render tree; tests read it (or run it against a recording encoder)
/// without EGL.
public struct Frame {
    /// The target's size in points, its scale and pixels.
    public let targetSize: Size
    public let scale: Double
    public let pixelSize: PixelSize
    /// Whether the whole target is drawn (and why).
    public internal(set) var isFull: Bool
    public internal(set) var fullFrameReason: FullFrameReason?
    /// Why the items were worked out from scratch this frame (nil: incrementally).
    public internal(set) var rebuildReason: RebuildReason?
    /// The pixels redrawn: disjoint rectangles (the whole target for a full frame; empty
    /// when nothing changed).
    public internal(set) var damage: DamageRegion
    /// Layers whose frame data was worked out (all after a rebuild; else O(changed)).
    public internal(set) var layersVisited: Int
    /// Offscreen work, each task after the tasks whose images it reads.
    public internal(set) var tasks: [RenderTask] = []
    /// The target's pass.
    public internal(set) var target: TargetPass
    /// Where the target's pass draws: the render target, or an image (a transition's old
    /// picture drawn from a copy of a subtree).
    public internal(set) var destination: PassDestination = .target
    /// The clip shapes draws refer to (`DrawItem.clip`), each after its parent.
    public internal(set) var clips: [ClipEntry] = []
    /// Images kept for earlier frames that no layer needs any more (the executor frees them).
    public internal(set) var releasedImages: [ImageKey] = []

    /// Whether nothing is drawn.
    public var isEmpty: Bool { !isFull && damage.isEmpty }
}

/// Why a whole target was drawn.
public enum FullFrameReason: String, Sendable, Equatable {
    /// The first frame of a tree, or after it was rebuilt.
    case rebuilt
    /// A new target, or a new background colour.
    case newTarget
    /// Asked for (`forgetLastFrame()`), or the frame before failed (its changes are drawn
    /// by this one). A context recovered from a loss rebuilds: `rebuilt`.
    case requested
    /// The host draws every frame (`compositesEveryFrame`), over what it drew itself
    /// (no background), or overlays are drawn.
    case drawsEveryFrame
    /// The target's buffer is of unknown age, or older than the damage remembered.
    case bufferAge
    /// The damage covers most of the target.
    case damageCoversMost
    /// The target (one of Lamina's own framebuffers) gets or loses its depth/stencil buffer:
    /// its items began or ceased to be clipped. llvmpipe rasterizes a primitive that
    /// crosses the target's edge differently with one (it clips the primitive; without, it
    /// keeps it whole within its guard band), which can move a pixel along the primitive's
    /// other edges: the whole target is drawn under the new rule, none of it kept from the
    /// old one.
    case stencilChanged
}

/// Why the render tree's items were worked out from scratch.
public enum RebuildReason: String, Sendable, Equatable {
    /// A new tree (the first frame, a snapshot after a context loss).
    case newTree
    /// The target's size or the root's placement changed.
    case newPlacement
    /// Too many changes arrived between frames.
    case tooManyChanges
    /// Paint-order keys ran out where subtrees kept being inserted (they are spread again).
    case orderKeysExhausted
}

/// The target's pass of a frame: cleared to `background` (nil: drawn over what the target
/// holds), one run of draws per damage rectangle, scissored to it.
public struct TargetPass {
    public var background: Color?
    public var runs: [DrawRun]
    /// Some item of the target's is drawn inside a clip (whether or not this frame draws
    /// it): a target of Lamina's own has its depth/stencil buffer exactly while this holds
    /// (`FullFrameReason.stencilChanged`).
    public var usesStencil = false
}

/// Draws scissored to a rectangle of target pixels (nil: the whole target).
public struct DrawRun {
    public var scissor: TargetPixels?
    public var draws: [DrawItem]
}

/// One draw, resolved: what it paints, where, under which clip and depth cuts.
public struct DrawItem {
    /// The clip (index into `Frame.clips`; nil: none).
    public var clip: Int?
    /// Half-planes of the draw's local points outside which nothing is drawn (a layer
    /// partly behind the eye).
    public var cuts: [HalfPlane]
    public var op: DrawOp
    /// A quad of the tree (a background, contents, a border…): what `FrameStatistics.quadsDrawn`
    /// counts — a group's composite is not one.
    public var isLayerQuad = true
}

/// What a draw paints. Geometry is in target points (a picture task's draws too: the
/// executor moves them by the task's origin).
public enum DrawOp {
    /// A rectangle of a layer's space under `transform`, filled (a background, a fill).
    case solid(Rect, transform: Transform3D, color: Color, opaque: Bool)
    /// A rounded rectangle, filled or a ring of `borderWidth` inside its edge, antialiased.
    case roundedRect(Rect, transform: Transform3D, color: Color, corners: CornerShape, borderWidth: Double)
    /// The analytic Gaussian shadow of a (rounded) rectangle.
    case shadow(Rect, transform: Transform3D, color: Color, cornerRadius: Double, sigma: Double)
    /// A layer's contents (an image, a backing store, a texture, an external buffer).
    case contents(ContentsDraw)
    /// An image kept by the compositor (a task's output).
    case image(ImageDraw)
    /// An image blended with what lies under it by a blend mode (a copy of the target's
    /// pixels under it is read: no other pass begins).
    case blended(ImageDraw, mode: BlendMode)
    /// A backdrop blur: what the pass drew so far under `box`, blurred, inside the layer's
    /// shape. The pass ends, the blur runs, and the pass goes on (no pass begins while
    /// another is open).
    case backdrop(BackdropDraw)
    /// Multiplies what the pass holds inside `rect` by the alpha of a mask image.
    case multiplyByMask(image: ImageKey, rect: Rect, maskSource: Rect)
    /// A shader layer's fragment shader over its bounds.
    case shader(ShaderDraw)
    /// A group's image through a shader effect. (Boxed: inline, its 368 bytes made every
    /// draw that size, and a draw is copied as the executor hands it to the encoder — with
    /// it boxed, a draw is 288 bytes; a group with an effect is one draw of a few.)
    indirect case effect(ShaderEffectDraw)
}

/// A layer's contents drawn into `frame` of its bounds space.
public struct ContentsDraw {
    public var content: ContentRef
    /// The layer showing them (the executor finds the contents' GPU copy by it first).
    public var layer: LayerID?
    public var frame: Rect
    /// The contents' size in points (nine-slice caps keep it).
    public var contentSize: Size
    public var contentsRect: Rect
    public var contentsCenter: Rect
    public var minFilter: TextureFilter
    public var magFilter: TextureFilter
    public var alpha: Double
    /// Opaque at full opacity: drawn without blending.
    public var isOpaque: Bool
    public var transform: Transform3D
}

/// An image of the compositor's drawn into `rect`.
public struct ImageDraw {
    public var image: ImageKey
    /// Where, in the space `transform` maps from (target points unless transformed).
    public var rect: Rect
    /// The part of the image drawn (unit coordinates, y down).
    public var source = Rect(x: 0, y: 0, width: 1, height: 1)
    public var alpha: Double
    public var filter: TextureFilter
    public var transform = Transform3D.identity
    /// Multiplies the image (a replicator's instance colour).
    public var tint = Color.white
}

/// A backdrop blur of a layer.
public struct BackdropDraw {
    /// The layer's box in target points (its backdrop is read under it and around it by
    /// the blur's reach).
    public var box: TargetBox
    /// σ in target points.
    public var sigma: Double
    public var alpha: Double
    /// The layer's shape: its bounds and corners under its world transform.
    public var bounds: Rect
    public var corners: CornerShape
    public var transform: Transform3D
    public var cuts: [HalfPlane]
}

/// A clip of `Frame.clips`: a stencil level (its shape pushed on top of `parent`'s).
public struct ClipEntry {
    /// The level below (nil: none).
    public var parent: Int?
    /// The stencil levels up to this one (this one's included).
    public var depth: Int
    /// Its shape: a layer's bounds and corners under a transform (target points), or
    /// — for the intersection of a run of axis-aligned rectangular clips — a rectangle of
    /// target points (`isTargetRect`).
    public var rect: Rect
    public var corners: CornerShape
    public var transform: Transform3D
    public var cuts: [HalfPlane]
    public var isTargetRect: Bool

    /// An axis-aligned rectangle outside every other clip: drawn by the scissor, no
    /// stencil level (`RenderPass.pushScissorClip`).
    public var isScissor: Bool { isTargetRect && parent == nil && cuts.isEmpty }
}

/// Offscreen work of a frame: it makes `output` (an image the compositor keeps) from the
/// images in `inputs`, made earlier in the frame or kept from earlier frames.
public struct RenderTask {
    public let id: RenderTaskID
    public let output: ImageKey
    public let kind: Kind
    /// The images it reads.
    public var inputs: [ImageKey] {
        switch kind {
        case .picture(let p): return p.inputs
        case .blur(let b): if case .image(let k) = b.source { return [k] }; return []
        case .gradient: return []
        }
    }

    public enum Kind {
        /// Draws into an image: a group's, a mask's, a replicator's sublayers', a
        /// transition's mix, a masked composite, a contents cross-fade, an old picture.
        case picture(PictureTask)
        /// Blurs an image (a shadow).
        case blur(BlurTask)
        /// Renders a gradient.
        case gradient(GradientTask)
    }
}

/// A picture: `draws` into a cleared image covering `pixels` of the target's pixel grid.
public struct PictureTask {
    /// The image's place on the target's pixel grid (it may reach past the target).
    public var pixels: TargetPixels
    public var scale: Double
    /// Draws are added to what the image holds (`blendsAdditively`: an exact cross-fade).
    public var additive: Bool
    public var draws: [DrawItem]
    /// Contents placed on the GPU before it draws, drawn or not (a flip-book's images,
    /// uploaded at the first frame of its fade).
    public var prepares: [ContentRef] = []
    /// The image's origin in target points.
    public var origin: Point { Point(x: Double(pixels.x) / scale, y: Double(pixels.y) / scale) }
    var inputs: [ImageKey] {
        var out: [ImageKey] = []
        for d in draws {
            switch d.op {
            case .image(let i), .blended(let i, _): out.append(i.image)
            case .effect(let e): out.append(e.image.image)
            case .multiplyByMask(let k, _, _): out.append(k)
            default: break
            }
        }
        return out
    }
}

/// A blur of an image or a content image (alpha only with a tint: a shadow).
public struct BlurTask {
    public enum Source { case image(ImageKey), content(ContentImage) }
    public var source: Source
    /// Texels of the source blurred (outside: transparent).
    public var region: PixelRect
    /// σ in source texels.
    public var sigma: Double
    public var tint: Color?
}

/// A gradient rendered at `pixelSize` for a layer of `size` points.
public struct GradientTask {
    public var style: GradientStyle
    public var size: Size
    public var pixelSize: PixelSize
}
