import LaminaGeometry
import LaminaValues

/// One drawable thing of a surface — a layer's background, its contents, its shadow, a
/// group's composite — kept from frame to frame: its box is brought up to date when its
/// layer changes, and it is resolved into draws only in the frames that draw it.
final class Item {
    /// The layer it belongs to (its node outlives its items: a node leaving the tree is kept
    /// until the frame that removes its items).
    unowned(unsafe) let node: RenderNode
    let kind: any ItemKind.Type
    /// Its place in its surface's paint order.
    let key: UInt64
    let surface: SurfaceID
    /// The `masksToBounds` clips around it within its surface (nil: none).
    @exclusivity(unchecked) var clip: ClipChain?
    /// Where it draws, in target points (nil: nothing — hidden, transparent, empty, clipped away).
    @exclusivity(unchecked) var bounds: TargetBox?
    /// Contents: where they are drawn in the layer's bounds space, and their size in points.
    @exclusivity(unchecked) var frame = Rect.zero
    @exclusivity(unchecked) var contentSize = Size.zero
    /// The grid cells it is in (the target's items).
    @exclusivity(unchecked) var cells: (Int32, Int32, Int32, Int32)?
    /// Whether its surface counts it among the items drawn inside a stencil clip
    /// (`Surface.stencilItems`); nil while no surface holds it.
    var countedInStencil: Bool?
    /// `kind.clipsItself` (read once: asking the kind again for every refreshed item of
    /// the kinds that never clip themselves cost a call and a retain of the node).
    private let kindClipsItself: Bool

    init(node: RenderNode, kind: any ItemKind.Type, key: UInt64, surface: SurfaceID, clip: ClipChain?) {
        self.node = node; self.kind = kind; self.key = key; self.surface = surface; self.clip = clip
        kindClipsItself = kind.clipsItself
    }

    /// It is drawn inside a stencil clip now: one of its own, or its clip chain is not a
    /// single axis-aligned rectangle (which the scissor clips). Its surface's pass then
    /// needs a stencil buffer.
    var drawsInStencil: Bool { clip?.needsStencil == true || (kindClipsItself && kind.drawsOwnClip(node)) }

    /// The clipping layers, outermost first (for tests).
    var clips: [LayerID] { clip?.layers ?? [] }
}

/// Where a kind's items go among a layer's own items.
enum ItemPhase { case beforeSublayers, afterSublayers }

/// A kind of item: what a layer needs for it, where it goes in the layer's paint order, its
/// box, and how it draws (with the render tasks it needs). Each kind lives in a file of its
/// own (Items/); `ItemKinds.layerKinds` lists them in paint order — adding a kind is a new
/// file and an entry there, no switch elsewhere.
protocol ItemKind: Sendable {
    /// A short name, for frame descriptions and tests.
    static var name: String { get }
    static var phase: ItemPhase { get }
    /// Clipped by the layer's own clip (`masksToBounds`) as its contents are; otherwise only
    /// by the clips around the layer.
    static var clippedByOwnClip: Bool { get }
    /// It reads what lies under it (a backdrop): damage within its reach grows.
    static var readsBackdrop: Bool { get }
    /// Whether its item for `node` may draw inside a stencil clip of its own making (not
    /// only its item's `clip`): a surface holding one needs a stencil buffer as one holding
    /// an item inside a stencil clip does. Asked whenever the item's boxes are worked out
    /// (`Surface.restencil`), which every change of the layer's own state, its placement
    /// or its structure does: the answer may depend on any of them.
    static func drawsOwnClip(_ node: RenderNode) -> Bool
    /// Whether `drawsOwnClip` may ever answer true (false: it is never asked).
    static var clipsItself: Bool { get }
    /// Whether a layer in `node`'s state has an item of this kind.
    static func occurs(in node: RenderNode) -> Bool
    /// Its box in target points now (nil: it draws nothing), from the node's frame data.
    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox?
    /// Adds its draws — and asks for the render tasks they read — to the frame being built.
    static func draw(_ item: Item, into builder: inout DrawBuilder)
}

extension ItemKind {
    static var clippedByOwnClip: Bool { false }
    static var readsBackdrop: Bool { false }
    static func drawsOwnClip(_ node: RenderNode) -> Bool { false }
    static var clipsItself: Bool { false }
}

/// What working out an item's box needs besides its node.
struct BoundsContext {
    /// The target's box: what a box reaching behind the eye covers.
    var everything: TargetBox
    /// The surfaces of the frame (a replicator's instances cover its sublayers' image).
    var surfaces: [SurfaceID: Surface]
}

/// The item kinds of layers, in paint order (a kind's index is its key slot: its items keep
/// their key while their layer keeps its place).
enum ItemKinds {
    static let layerKinds: [any ItemKind.Type] = [
        AnalyticShadowItem.self, PathShadowItem.self, BackdropItem.self, SolidItem.self, RoundedRectItem.self,
        GradientItem.self, ShaderItem.self, ContentsItem.self, ContentsCrossFadeItem.self, ReplicasItem.self, BorderItem.self,
    ]
    /// Key slots before a layer's sublayers: one per kind, the group composite's after them.
    static let slotsBefore = layerKinds.count + 2
    static let compositeSlot = layerKinds.count + 1
    /// Key slots after the sublayers.
    static let slotsAfter = layerKinds.count + 1

    /// The kinds a node has, as a bit set (a change of it changes the node's items): up to
    /// 64 kinds (`layerKinds` is checked once).
    static func kinds(of node: RenderNode) -> UInt64 {
        guard !node.state.preservesDepth else { return 0 }
        precondition(fitsBitSet, "more than 64 item kinds: PlannedFacts.kinds needs a wider set")
        var bits: UInt64 = 0
        for (i, k) in layerKinds.enumerated() where k.occurs(in: node) { bits |= 1 << UInt64(i) }
        return bits
    }
    private static let fitsBitSet = layerKinds.count <= 64

    /// The slot of a kind in a node's key range.
    static func slot(of kind: any ItemKind.Type) -> Int {
        layerKinds.firstIndex { $0 == kind } ?? 0
    }
}
