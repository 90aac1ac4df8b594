import LaminaGeometry
import LaminaGPU

/// One step of a render list: what to draw, fully resolved (world transform, opacity,
/// clip, texture), in draw order. The render list is the renderer's only input; building
/// it touches no GL, so it can be tested without a GPU.
public enum RenderCommand: Sendable {
    /// A solid rectangle, optionally rounded or as a border ring (`borderWidth` > 0).
    case fill(rect: Rect, color: Color, cornerRadius: Double, borderWidth: Double, transform: Transform3D, layer: LayerID)
    /// Contents: `sourceRect` (unit) of the image or texture into `rect`; with a `center`
    /// other than the unit rectangle, nine-slice stretched (`contentSize` in points).
    case contents(ContentRef, rect: Rect, sourceRect: Rect, center: Rect, contentSize: Size, alpha: Double,
                  minFilter: TextureFilter, magFilter: TextureFilter, transform: Transform3D, layer: LayerID)
    /// Restrict what follows to a (rounded) rectangle, until the matching `popClip`.
    case pushClip(rect: Rect, cornerRadius: Double, transform: Transform3D)
    case popClip(rect: Rect, cornerRadius: Double, transform: Transform3D)
    /// What follows, until `endGroup`, is drawn offscreen and composited as one image at `opacity`.
    case beginGroup
    case endGroup(opacity: Double)

    /// Whether the command draws a quad of the layer tree (not a clip or a group boundary).
    public var isQuad: Bool {
        switch self {
        case .fill, .contents: return true
        default: return false
        }
    }
}

/// A render list: the commands of one frame, in order (`RenderTree.buildList`, or
/// `RenderList.build(root)` straight from a layer tree).
public struct RenderList: Sendable {
    public internal(set) var commands: [RenderCommand] = []
    /// Layers looked at while building (hidden or culled ones included).
    public internal(set) var layersVisited = 0

    public init() {}

    /// The render list of `root` and its subtree, from a snapshot of the model (no GPU).
    /// `placement` maps the root's superlayer space to target points.
    @MainActor
    public static func build(_ root: Layer, placement: Transform3D = .identity) -> RenderList {
        RenderTree(snapshotOf: root).buildList(placement: placement)
    }

    /// Adds a translucent rectangle over everything (debug overlays: redrawn regions).
    public mutating func appendOverlay(rect: Rect, color: Color, transform: Transform3D) {
        commands.append(.fill(rect: rect, color: color, cornerRadius: 0, borderWidth: 0,
                              transform: transform.concatenating(.flatten), layer: LayerID(rawValue: 0)))
    }
}
