import LaminaGeometry
import Synchronization

/// A layer's identity for the renderer: unique for the life of the process (an
/// `ObjectIdentifier` is reused once a layer is freed).
public struct LayerID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }
    private static let counter = Atomic<UInt64>(0)
    package static func next() -> LayerID { LayerID(rawValue: counter.add(1, ordering: .relaxed).newValue) }
    public static func < (a: LayerID, b: LayerID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// What a layer shows, as the renderer sees it: no model object, only what can cross to
/// another thread (an immutable image, a backing store's identity, a texture handle).
///
/// Indirect: one reference to an immutable box, made with the layer's state (a change of
/// geometry alone, delivered as a `GeometryUpdate`, makes none). A frame copies each shown
/// layer's contents several times (into its draw, the executor's look-up, the cache's key);
/// a copy of the inline enum (payloads with existentials) went through the enum's value
/// witnesses, about 900 instructions a layer a frame in S1.
public indirect enum ContentRef: Sendable, Hashable {
    /// An immutable image, uploaded by the renderer when first shown.
    case image(ContentImage)
    /// A backing store's pixels (`ContentUpload`s carry them), by identity.
    case store(StoreRef)
    /// A texture the caller made or lent; the renderer draws it as is.
    case texture(TextureRef)
    /// An external buffer, each lend of it (each time a layer's contents are set to it)
    /// told apart: a new lend is a new frame in the buffer.
    case external(ExternalRef)
    /// Pixels a GL layer's drawing renders, on the renderer's GPU (`GLLayer`).
    case gl(GLContentRef)

    public var pixelSize: PixelSize {
        switch self {
        case .image(let i): return i.pixelSize
        case .store(let s): return s.pixelSize
        case .texture(let t): return t.texture.pixelSize
        case .external(let e): return e.buffer.pixelSize
        case .gl(let g): return g.pixelSize
        }
    }

    public static func == (a: ContentRef, b: ContentRef) -> Bool {
        switch (a, b) {
        case let (.image(x), .image(y)): return x === y
        case let (.store(x), .store(y)): return x == y
        case let (.texture(x), .texture(y)): return x.texture === y.texture
        case let (.external(x), .external(y)): return x.buffer === y.buffer && x.lend == y.lend
        case let (.gl(x), .gl(y)):
            return x.source === y.source && x.generation == y.generation && x.isAsynchronous == y.isAsynchronous
        default: return false
        }
    }

    public func hash(into h: inout Hasher) { h.combine(ContentKey(self)) }
}

/// A content the renderer keeps a texture for, by identity.
public enum ContentKey: Hashable, Sendable {
    case image(UInt64)
    case store(UInt64)
    case texture(ObjectIdentifier)
    /// An external buffer (any lend of it).
    case external(UInt64)
    /// A GL layer's drawable (by its `GLContentSource`).
    case gl(UInt64)

    public init(_ ref: ContentRef) {
        switch ref {
        case .image(let i): self = .image(i.id)
        case .store(let s): self = .store(s.id)
        case .texture(let t): self = .texture(ObjectIdentifier(t.texture))
        case .external(let e): self = .external(e.buffer.id)
        case .gl(let g): self = .gl(g.source.id)
        }
    }
}

/// A backing store by identity: its pixels reach the renderer as `ContentUpload`s.
public struct StoreRef: Hashable, Sendable {
    public let id: UInt64
    public let pixelSize: PixelSize
    /// Drawn without alpha (`bgrx`), else premultiplied BGRA (Cairo's ARGB32).
    public let isOpaque: Bool
    public init(id: UInt64, pixelSize: PixelSize, isOpaque: Bool) { self.id = id; self.pixelSize = pixelSize; self.isOpaque = isOpaque }
}

/// A buffer another component produced, shown as contents (LaminaGPU's `ExternalBuffer`):
/// what the model and the renderers' trees know of it without knowing GPUs.
public protocol ContentBuffer: AnyObject, Sendable {
    /// Identity (stable for the buffer's life, never reused).
    var id: UInt64 { get }
    var pixelSize: PixelSize { get }
    /// Every pixel is opaque.
    var isOpaque: Bool { get }
    /// Notes that the buffer holds a new frame; returns its generation.
    func newFrame() -> UInt64
}

/// A texture shown as contents (LaminaGPU's `Texture`), as the model holds it.
public protocol ContentTexture: AnyObject {
    var pixelSize: PixelSize { get }
}

/// An external buffer used as contents, and which lend of it (`LayerContents.external`).
public struct ExternalRef: Sendable {
    public let buffer: any ContentBuffer
    /// The buffer's generation when it was lent (`ExternalBuffer.newFrame()`).
    public let lend: UInt64
    public init(buffer: any ContentBuffer, lend: UInt64) { self.buffer = buffer; self.lend = lend }
}

/// A texture used as contents. GL objects live on their device's thread; the renderer
/// that draws it is on that thread.
public struct TextureRef: @unchecked Sendable {
    public let texture: any ContentTexture
    public init(texture: any ContentTexture) { self.texture = texture }
}

/// Pixels of a backing store for the renderer: a rectangle of it (the whole store, when
/// `isFull`), copied at the commit, rows `rowBytes` apart, in the store's byte order.
public struct ContentUpload: Sendable {
    public let store: StoreRef
    public let region: PixelRect
    public let isFull: Bool
    public let bytes: [UInt8]
    public var rowBytes: Int { region.width * 4 }
    public init(store: StoreRef, region: PixelRect, isFull: Bool, bytes: [UInt8]) {
        self.store = store; self.region = region; self.isFull = isFull; self.bytes = bytes
    }
}

/// The properties of a layer that renderers see, stored together in the layer (so that a
/// commit copies them in one piece).
public struct LayerProperties: Sendable, Equatable {
    public var bounds: Rect = Rect.zero
    public var position: Point = Point.zero
    public var anchorPoint: Point = Point(x: 0.5, y: 0.5)
    public var anchorPointZ: Double = 0.0
    public var zPosition: Double = 0.0
    public var transform: Transform3D = Transform3D.identity
    public var sublayerTransform: Transform3D = Transform3D.identity
    public var isDoubleSided: Bool = true
    public var backgroundColor: Color? = nil
    public var opacity: Double = 1.0
    public var allowsGroupOpacity: Bool = true
    public var isHidden: Bool = false
    public var borderWidth: Double = 0.0
    public var borderColor: Color = Color.black
    public var cornerRadius: Double = 0.0
    /// The corners `cornerRadius` rounds (all by default).
    public var maskedCorners: CornerMask = .all
    public var cornerCurve: CornerCurve = .circular
    public var masksToBounds: Bool = false
    public var isOpaque: Bool = false
    public var contentsRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1)
    public var contentsCenter: Rect = Rect(x: 0, y: 0, width: 1, height: 1)
    public var contentsGravity: ContentsGravity = ContentsGravity.resize
    public var contentsScale: Double = 1.0
    public var minificationFilter: TextureFilter = TextureFilter.linear
    public var magnificationFilter: TextureFilter = TextureFilter.linear
    /// The layer's media timing (beginTime, speed, timeOffset).
    public var timing = LayerTiming()
    // Effects (LayerEffects.swift).
    public var shadowColor: Color = Color.black
    public var shadowOpacity: Double = 0
    public var shadowOffset: Size = Size(width: 0, height: -3)
    public var shadowRadius: Double = 3
    /// The shadow's shape (`Layer.shadowPath`); nil: the layer's alpha.
    public var shadowPath: Path? {
        @inlinable get { rare?.value.shadowPath }
        set { updateRare { $0.shadowPath = newValue } }
    }
    /// A `shadowPath` that is not a (rounded) rectangle, rasterised by the model when it is set.
    public var shadowMask: ShadowMask? {
        @inlinable get { rare?.value.shadowMask }
        set { updateRare { $0.shadowMask = newValue } }
    }
    public var compositingFilter: BlendMode? = nil
    public var backgroundFilters: [LayerFilter] {
        @inlinable get { rare?.value.backgroundFilters ?? [] }
        set { updateRare { $0.backgroundFilters = newValue } }
    }
    /// A `GradientLayer`'s gradient.
    public var gradient: GradientStyle? {
        @inlinable get { rare?.value.gradient }
        set { updateRare { $0.gradient = newValue } }
    }
    /// A `ReplicatorLayer`'s instances.
    public var replicator: ReplicatorStyle? {
        @inlinable get { rare?.value.replicator }
        set { updateRare { $0.replicator = newValue } }
    }
    /// `replicator != nil`, without making the optional style (a tag store of a few hundred
    /// bytes, every layer placed).
    @inlinable package var isReplicator: Bool {
        guard let rare else { return false }
        if case .none = rare.value.replicator { return false }
        return true
    }
    /// A `ShaderLayer`'s program and uniforms.
    public var shader: ShaderStyle? {
        @inlinable get { rare?.value.shader }
        set { updateRare { $0.shader = newValue } }
    }
    /// A fragment shader over the layer's rendered image (`Layer.shaderEffect`).
    public var shaderEffect: ShaderEffect? {
        @inlinable get { rare?.value.shaderEffect }
        set { updateRare { $0.shaderEffect = newValue } }
    }
    /// Where contents are drawn in the bounds space, instead of per `contentsGravity`
    /// (a `ShapeLayer`'s rasterised path covers the path's box, not its bounds).
    public var contentsPlacement: Rect? = nil
    /// Presented only (never in the model): a `contents` animation's cross-fade.
    package var contentsFade: ContentsFade? {
        get { rare?.value.contentsFade }
        set { updateRare { $0.contentsFade = newValue } }
    }
    /// Presented only: a transition's progress (`TransitionAnimation`).
    package var transition: TransitionProgress? {
        get { rare?.value.transition }
        set { updateRare { $0.transition = newValue } }
    }
    /// Values of a layer kind's own animatable keys (`ShapeLayer.strokeEnd`, a subclass's
    /// keys set with `Layer.setValue(_:forKey:)`): the model side draws with them
    /// (`needsDisplay(forKey:)`); renderers ignore them.
    public var custom: [String: AnimationValue]? {
        @inlinable get { rare?.value.custom }
        set { updateRare { $0.custom = newValue } }
    }

    /// The properties above that hold references, out of line in one immutable box (nil
    /// while all are unset): every commit copies the properties of each changed layer and
    /// frees the copy it replaces, and each reference inline cost a retain and a release
    /// there even when nil — ten of them, most of a copy's cost. Inline, they also made the
    /// properties 1105 bytes: past glibc's per-thread cache of small blocks, so every
    /// `LayerState` took malloc's slow path.
    /// (`@usableFromInline`, as the getters above are inlinable: a getter called across modules
    /// on a layer's properties copied all of them first, 833 bytes, to read one reference.)
    @usableFromInline var rare: OutOfLine<RareProperties>?

    /// Whether any of the properties kept out of line is set (shadowPath, filters, a
    /// gradient, a replicator, a shader, custom keys…).
    @inlinable package var hasRareProperties: Bool { rare != nil }

    private mutating func updateRare(_ change: (inout RareProperties) -> Void) {
        var r = rare?.value ?? RareProperties()
        change(&r)
        rare = r == RareProperties() ? nil : OutOfLine(r)
    }

    public init() {}
}

/// The properties of a layer that hold references (`LayerProperties.rare`), set on few layers.
@usableFromInline struct RareProperties: Sendable, Equatable {
    @usableFromInline var shadowPath: Path?
    @usableFromInline var shadowMask: ShadowMask?
    @usableFromInline var backgroundFilters: [LayerFilter] = []
    @usableFromInline var gradient: GradientStyle?
    @usableFromInline var replicator: ReplicatorStyle?
    @usableFromInline var shader: ShaderStyle?
    @usableFromInline var shaderEffect: ShaderEffect?
    var contentsFade: ContentsFade?
    var transition: TransitionProgress?
    @usableFromInline var custom: [String: AnimationValue]?
    init() {}
}

/// A value kept out of line (immutable, shared until set again).
@usableFromInline final class OutOfLine<Value: Sendable & Equatable>: Sendable, Equatable {
    @usableFromInline let value: Value
    init(_ value: Value) { self.value = value }
    @usableFromInline static func == (a: OutOfLine, b: OutOfLine) -> Bool { a === b || a.value == b.value }
}

/// Everything the renderer needs of one layer: its properties and the identities of its
/// sublayers, in order. Immutable once shared (so Sendable): made on the main actor at a
/// commit, then shared by reference — the update, and every renderer's tree, hold the same
/// object. The one exception: a render tree that holds the only reference may apply a
/// `GeometryUpdate` to it in place (`applyInPlace`), as nothing else can see it.
public final class LayerState: @unchecked Sendable {
    public let id: LayerID
    @inlinable public var properties: LayerProperties { _read { yield storedProperties } }
    /// (Set once, or by `applyInPlace`.)
    @exclusivity(unchecked) @usableFromInline var storedProperties: LayerProperties
    public let preservesDepth: Bool
    public let contents: ContentRef?
    /// `contents?.pixelSize`, kept: placing the contents needs only their size, and copying
    /// the optional reference out of the state costs a retain, a release and the runtime's
    /// generic copy of an optional (a tenth of a microsecond a layer).
    @usableFromInline package let contentsPixelSize: PixelSize?
    /// The sublayers in order, when the list changed and is given whole (`changes` holds
    /// `.sublayers`, or the layer is described whole); otherwise empty — `sublayerEdits`
    /// says what changed, or nothing did.
    public let sublayers: [LayerID]
    /// How the sublayer list changed since the state the renderers hold (nil: `sublayers`
    /// is the whole list). A layer with 10⁵ sublayers of which one was inserted is not
    /// described whole.
    public let sublayerEdits: [SublayerEdit]?
    /// The mask layer (`Layer.mask`), held below this layer like a sublayer but not drawn as one.
    public let mask: LayerID?
    /// Sublayers and the mask.
    package var children: [LayerID] { mask.map { sublayers + [$0] } ?? sublayers }
    /// What changed since the layer's previous state was handed over (everything for a
    /// layer the renderers may not know): renderers use it instead of comparing states.
    @inlinable public var changes: LayerChanges { storedChanges }
    @exclusivity(unchecked) @usableFromInline var storedChanges: LayerChanges
    /// The layer's animations (what the renderer evaluates every frame), in the order they
    /// were added, their begin times set.
    public let effects: [AnimationEffect]

    @inlinable package init(id: LayerID, properties: LayerProperties, preservesDepth: Bool, contents: ContentRef?, sublayers: [LayerID],
                 sublayerEdits: [SublayerEdit]? = nil, mask: LayerID? = nil, changes: LayerChanges, effects: [AnimationEffect] = []) {
        self.id = id; storedProperties = properties; self.preservesDepth = preservesDepth
        self.contents = contents; contentsPixelSize = contents?.pixelSize; self.sublayers = sublayers; self.sublayerEdits = sublayerEdits; self.mask = mask
        storedChanges = changes; self.effects = effects
    }

    private init(presenting properties: LayerProperties, of s: LayerState) {
        id = s.id; storedProperties = properties; preservesDepth = s.preservesDepth; contents = s.contents; contentsPixelSize = s.contentsPixelSize
        sublayers = s.sublayers; sublayerEdits = s.sublayerEdits; mask = s.mask; storedChanges = s.changes; effects = s.effects
    }

    /// The same layer described whole: its sublayer list given (not as edits), everything changed.
    package func describedWhole(sublayers: [LayerID], mask: LayerID?, properties: LayerProperties? = nil) -> LayerState {
        LayerState(id: id, properties: properties ?? self.properties, preservesDepth: preservesDepth, contents: contents,
                   sublayers: sublayers, mask: mask, changes: .all, effects: effects)
    }

    /// The same layer showing `properties` (what its animations present).
    package func presenting(_ properties: LayerProperties) -> LayerState {
        LayerState(presenting: properties, of: self)
    }

    /// The same layer after `update`: a new state (this one may be shared).
    package func applying(_ update: GeometryUpdate) -> LayerState {
        var p = properties
        update.apply(to: &p)
        let s = LayerState(presenting: p, of: self)
        s.storedChanges = update.changes
        return s
    }

    /// Applies `update` to this state itself. Only for its sole holder: the caller checked
    /// `isKnownUniquelyReferenced` (no other tree, update or thread can see the change).
    package func applyInPlace(_ update: GeometryUpdate) {
        update.apply(to: &storedProperties)
        storedChanges = update.changes
    }

    /// It draws contents: its own, or a cross-fade of contents.
    package var showsContents: Bool { contents != nil || properties.contentsFade != nil }

    @inlinable public var bounds: Rect { properties.bounds }
    @inlinable public var position: Point { properties.position }
    @inlinable public var anchorPoint: Point { properties.anchorPoint }
    @inlinable public var anchorPointZ: Double { properties.anchorPointZ }
    @inlinable public var zPosition: Double { properties.zPosition }
    @inlinable public var transform: Transform3D { properties.transform }
    @inlinable public var sublayerTransform: Transform3D { properties.sublayerTransform }
    @inlinable public var isDoubleSided: Bool { properties.isDoubleSided }
    public var backgroundColor: Color? { properties.backgroundColor }
    @inlinable public var opacity: Double { properties.opacity }
    public var allowsGroupOpacity: Bool { properties.allowsGroupOpacity }
    @inlinable public var isHidden: Bool { properties.isHidden }
    public var borderWidth: Double { properties.borderWidth }
    public var borderColor: Color { properties.borderColor }
    public var cornerRadius: Double { properties.cornerRadius }
    /// The bounds' corner shape: `cornerRadius`, `maskedCorners`, `cornerCurve`.
    public var cornerShape: CornerShape {
        CornerShape(radius: properties.cornerRadius, corners: properties.maskedCorners, curve: properties.cornerCurve)
    }
    public var masksToBounds: Bool { properties.masksToBounds }
    public var isOpaque: Bool { properties.isOpaque }
    public var contentsRect: Rect { properties.contentsRect }
    public var contentsCenter: Rect { properties.contentsCenter }
    public var contentsGravity: ContentsGravity { properties.contentsGravity }
    public var contentsScale: Double { properties.contentsScale }
    public var minificationFilter: TextureFilter { properties.minificationFilter }
    public var magnificationFilter: TextureFilter { properties.magnificationFilter }
}

/// A layer whose change since its last state is only where it is, how it is turned and how
/// opaque (`LayerChanges.geometryUpdate`): the new values of those properties, handed over
/// in place of a whole `LayerState`. An animation-free layer set every frame (a scroll, a
/// drag, a spin) costs its renderers a few hundred bytes copied, not a state made and the
/// old one freed; a render tree that alone holds the layer's state updates it in place.
public struct GeometryUpdate: Sendable {
    public let id: LayerID
    /// What changed: a subset of `LayerChanges.geometryUpdate`.
    public let changes: LayerChanges
    public let bounds: Rect
    public let position: Point
    public let anchorPoint: Point
    public let anchorPointZ: Double
    public let zPosition: Double
    public let transform: Transform3D
    public let sublayerTransform: Transform3D
    public let isDoubleSided: Bool
    public let opacity: Double
    public let isHidden: Bool

    /// The values of what `changes` covers; nil when `changes` holds more. (Taken one by one:
    /// a layer reads them from its properties in place, where passing its `LayerProperties`
    /// whole copied the struct, references and all.)
    @inlinable package init?(id: LayerID, changes: LayerChanges, bounds: Rect, position: Point, anchorPoint: Point,
                             anchorPointZ: Double, zPosition: Double, transform: Transform3D, sublayerTransform: Transform3D,
                             isDoubleSided: Bool, opacity: Double, isHidden: Bool) {
        guard !changes.isEmpty, changes.isSubset(of: .geometryUpdate) else { return nil }
        self.id = id; self.changes = changes
        self.bounds = bounds; self.position = position; self.anchorPoint = anchorPoint; self.anchorPointZ = anchorPointZ
        self.zPosition = zPosition; self.transform = transform; self.sublayerTransform = sublayerTransform
        self.isDoubleSided = isDoubleSided; self.opacity = opacity; self.isHidden = isHidden
    }

    /// Sets these values in `p`.
    @inlinable public func apply(to p: inout LayerProperties) {
        p.bounds = bounds; p.position = position; p.anchorPoint = anchorPoint; p.anchorPointZ = anchorPointZ
        p.zPosition = zPosition; p.transform = transform; p.sublayerTransform = sublayerTransform
        p.isDoubleSided = isDoubleSided; p.opacity = opacity; p.isHidden = isHidden
    }
}

/// One change of a layer's sublayer list, as the renderers apply it.
public enum SublayerEdit: Sendable, Equatable {
    /// `id` was inserted just after `after` (nil: first).
    case insert(LayerID, after: LayerID?)
    /// `id` left the list.
    case remove(LayerID)
}

/// Which properties of a layer changed, as the model's setters saw it (Chromium's layer
/// property-change flags): a renderer works out only what these affect.
public struct LayerChanges: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// bounds, position, anchorPoint(Z), transform, sublayerTransform, isDoubleSided.
    public static let geometry = LayerChanges(rawValue: 1 << 0)
    public static let zPosition = LayerChanges(rawValue: 1 << 1)
    public static let opacity = LayerChanges(rawValue: 1 << 2)
    public static let hidden = LayerChanges(rawValue: 1 << 3)
    public static let background = LayerChanges(rawValue: 1 << 4)
    /// borderWidth, borderColor.
    public static let border = LayerChanges(rawValue: 1 << 5)
    /// cornerRadius, maskedCorners, cornerCurve.
    public static let cornerRadius = LayerChanges(rawValue: 1 << 6)
    public static let masksToBounds = LayerChanges(rawValue: 1 << 7)
    public static let groupOpacity = LayerChanges(rawValue: 1 << 8)
    /// contents, contentsRect, contentsCenter, contentsGravity, contentsScale, filters, isOpaque.
    public static let contents = LayerChanges(rawValue: 1 << 9)
    /// New pixels in the same contents (a redraw, `contentsDidChange()`).
    public static let pixels = LayerChanges(rawValue: 1 << 10)
    public static let sublayers = LayerChanges(rawValue: 1 << 11)
    /// beginTime, speed, timeOffset (what the layer's animations and its sublayers' see).
    public static let timing = LayerChanges(rawValue: 1 << 12)
    /// Animations added or removed.
    public static let animations = LayerChanges(rawValue: 1 << 13)
    /// shadowColor, shadowOpacity, shadowOffset, shadowRadius, shadowPath.
    public static let shadow = LayerChanges(rawValue: 1 << 15)
    /// compositingFilter, backgroundFilters, a gradient's style, the mask.
    public static let effects = LayerChanges(rawValue: 1 << 16)
    public static let all = LayerChanges(rawValue: (1 << 14) - 1 | 1 << 15 | 1 << 16)
    /// What a `GeometryUpdate` carries: geometry, zPosition, opacity, isHidden.
    public static let geometryUpdate: LayerChanges = [.geometry, .zPosition, .opacity, .hidden]
    /// A transition's progress (render side only: a presented state's).
    package static let transitionProgress = LayerChanges(rawValue: 1 << 14)
}

/// What a commit hands each renderer: the state of every layer that changed (a layer
/// whose sublayers changed lists them again; a subtree added to a tree is described
/// whole) and the pixels drawn since the last commit. A layer that left its tree is told by
/// its parent's sublayer list (its renderer lets go of what it held).
public struct RenderUpdate: Sendable {
    public var layers: [LayerState] = []
    /// Layers known to the renderers whose change is only their geometry, zPosition,
    /// opacity or visibility, and that have no animations (each layer is in `layers` or here).
    public var geometry: [GeometryUpdate] = []
    public var uploads: [ContentUpload] = []
    public init() {}
    public var isEmpty: Bool { layers.isEmpty && geometry.isEmpty && uploads.isEmpty }
    /// Layers described, whole or as geometry.
    public var layerCount: Int { layers.count + geometry.count }
}
