import LaminaValues

/// What items draw into: the render target, or an offscreen image kept between frames.
public enum SurfaceID: Hashable, Sendable, CustomStringConvertible {
    /// The render target.
    case target
    /// A group's image (group opacity, a blend mode, a mask, a shadow of its alpha, a transition).
    case group(LayerID)
    /// The image of the mask of a layer (`Layer.mask`).
    case mask(of: LayerID)
    /// The image of a replicator's sublayers, drawn once per instance.
    case replicas(of: LayerID)

    /// The layer whose composite shows this surface (nil: the target).
    public var owner: LayerID? {
        switch self {
        case .target: return nil
        case .group(let id), .mask(of: let id), .replicas(of: let id): return id
        }
    }

    public var description: String {
        switch self {
        case .target: return "target"
        case .group(let id): return "group \(id)"
        case .mask(let id): return "mask of \(id)"
        case .replicas(let id): return "replicas of \(id)"
        }
    }
}

/// An image the compositor keeps between frames (in its image cache), produced by a render
/// task and drawn by later tasks and passes.
public enum ImageKey: Hashable, Sendable, CustomStringConvertible {
    /// A surface's image (a group, a mask, a replicator's sublayers).
    case surface(SurfaceID)
    /// A group's image mixed with its transition's old picture.
    case transitionMix(LayerID)
    /// A group's composite (its image, with its shadow) multiplied by its mask's image.
    case masked(LayerID)
    /// A blurred shadow (of a group's alpha, or of a rasterised `shadowPath`).
    case shadow(LayerID)
    /// A gradient layer's gradient.
    case gradient(LayerID)
    /// The cross-fade of a layer's two contents.
    case contentsMix(LayerID)
    /// A transition's old picture (by the transition's identity).
    case oldPicture(UInt64)
    /// Instance k (from 1) of a replicator with `instanceDelay`: its sublayers k delays ago.
    case delayedInstance(LayerID, Int)

    public var description: String {
        switch self {
        case .surface(let s): return "image of \(s)"
        case .transitionMix(let id): return "transition mix of \(id)"
        case .masked(let id): return "masked composite of \(id)"
        case .shadow(let id): return "shadow of \(id)"
        case .gradient(let id): return "gradient of \(id)"
        case .contentsMix(let id): return "contents mix of \(id)"
        case .oldPicture(let t): return "old picture of transition \(t)"
        case let .delayedInstance(id, k): return "instance \(k) of replicator \(id), delayed"
        }
    }
}

/// A render task of a frame (its index in `Frame.tasks`).
public struct RenderTaskID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let index: Int
    public static func < (a: RenderTaskID, b: RenderTaskID) -> Bool { a.index < b.index }
    public var description: String { "task \(index)" }
}
