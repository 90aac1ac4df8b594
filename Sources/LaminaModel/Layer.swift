import FoundationEssentials
import Glibc
import LaminaGeometry
@_spi(LaminaInternal) import LaminaValues
import LaminaGraphics

/// A Core-Animation-style layer: a rectangle with geometry, appearance and contents,
/// in a tree. Coordinates are UIKit's: points, origin top-left, y down.
///
/// Every property setter goes through one funnel (`changed(_:)`): equal values return
/// early; otherwise the layer joins the current transaction's changes, and the commit
/// hands the renderers its new state (an unchanged tree costs no GPU work). Layers know
/// nothing of renderers, devices or textures.
@MainActor
open class Layer {
    public required init() {}

    /// The layer's identity for renderers (never reused).
    public let id = LayerID.next()
    /// The transaction context the layer belongs to: the one current when it was made
    /// (`TransactionContext.current`). Its changes, layout and display go there; a layer
    /// added to a tree of another context moves there with its subtree.
    @exclusivity(unchecked) public internal(set) var transactionContext = TransactionContext.current
    /// A name for diagnostics and scene files.
    public var name: String?

    // MARK: Tree

    /// The sublayers, back to front.
    public var sublayers: [Layer] { sublayerList.elements() }
    @exclusivity(unchecked) public private(set) weak var superlayer: Layer? { didSet { Layer.noteRenderParentChange() } }

    // `@exclusivity(unchecked)` on the fields every setter and commit touch: none is passed
    // `inout` or held across a call that could reach the layer again (see RenderNode's fields).
    /// The sublayers' storage: removing any sublayer is O(1) (`SlotList`).
    @exclusivity(unchecked) private var sublayerList = SlotList<Layer>()
    /// This layer's slot in its superlayer's list.
    @_spi(LaminaInternal) public var slotIndex = -1
    /// The number of sublayers (without compacting).
    var sublayerCount: Int { sublayerList.count }

    /// Appends `layer` (removing it from its current superlayer first). Adding the layer
    /// itself or one of its ancestors would make a cycle: the call is refused (returns
    /// false) and the tree is left unchanged.
    @discardableResult
    public func addSublayer(_ layer: Layer) -> Bool {
        guard !wouldMakeCycle(adding: layer) else { return false }
        layer.removeFromSuperlayer()
        let after = sublayerList.last
        sublayerList.append(layer)
        layer.superlayer = self
        noteSublayerEdit(.insert(layer.id, after: after?.id))
        layer.subtreeInserted()        // renderers may not know it: described whole
        return true
    }

    /// Whether adding `layer` below this layer would make a cycle (it is this layer or one
    /// of its ancestors). A layer without sublayers can only be this one: O(1) when trees
    /// are built top-down, O(depth) otherwise.
    private func wouldMakeCycle(adding layer: Layer) -> Bool {
        if layer === self { return true }
        if layer.sublayerCount == 0 && layer.mask == nil { return false }
        // Above this layer through superlayers and masks.
        var l: Layer? = self
        while let c = l {
            if c === layer { return true }
            l = c.renderParent
        }
        return false
    }

    /// Inserts `layer` at `index` of `sublayers` (clamped to the valid range).
    @discardableResult
    public func insertSublayer(_ layer: Layer, at index: Int) -> Bool {
        guard !wouldMakeCycle(adding: layer) else { return false }
        var i = max(0, min(index, sublayerList.count))
        if layer.superlayer === self, let old = sublayerList.index(of: layer), old < i { i -= 1 }
        layer.removeFromSuperlayer()
        i = min(i, sublayerList.count)
        guard i < sublayerList.count else { return addSublayer(layer) }
        let after = i > 0 ? sublayerList.element(at: i - 1) : nil
        sublayerList.insert(layer, at: i)
        layer.superlayer = self
        noteSublayerEdit(.insert(layer.id, after: after?.id))
        layer.subtreeInserted()        // renderers may not know it: described whole
        return true
    }

    /// The index of `sibling` in `sublayers`, when it is one (compacts first).
    private func indexOfSublayer(_ sibling: Layer) -> Int? {
        guard sibling.superlayer === self else { return nil }
        return sublayerList.index(of: sibling)
    }

    /// Inserts `layer` just above `sibling` (at the top when `sibling` is not a sublayer).
    @discardableResult
    public func insertSublayer(_ layer: Layer, above sibling: Layer?) -> Bool {
        guard let sibling, layer !== sibling, let i = indexOfSublayer(sibling) else {
            return addSublayer(layer)
        }
        return insertSublayer(layer, at: i + 1)
    }

    /// Inserts `layer` just below `sibling` (at the bottom when `sibling` is not a sublayer).
    @discardableResult
    public func insertSublayer(_ layer: Layer, below sibling: Layer?) -> Bool {
        guard let sibling, layer !== sibling, let i = indexOfSublayer(sibling) else {
            return insertSublayer(layer, at: 0)
        }
        return insertSublayer(layer, at: i)
    }

    /// Replaces `old` (a sublayer) with `new`; refused (nothing changes) when `new` is
    /// this layer or one of its ancestors.
    public func replaceSublayer(_ old: Layer, with new: Layer) {
        guard let i = indexOfSublayer(old), old !== new, !wouldMakeCycle(adding: new) else { return }
        old.removeFromSuperlayer()
        insertSublayer(new, at: i)
    }

    /// Removes the layer from its superlayer's sublayers. O(1): N siblings removed one by
    /// one cost O(N) in all.
    public func removeFromSuperlayer() {
        if let owner = maskOwner { owner.mask = nil; return }
        guard let parent = superlayer else { return }
        superlayer = nil
        if !addedAnimations.isEmpty || sublayerCount > 0 { transactionContext.invalidateAnimationEvents() }
        parent.sublayerList.remove(self)
        parent.noteSublayerEdit(.remove(id))
    }

    /// The sublayer edits since the layer's state last went to the renderers (nil: they
    /// get the whole list — too many edits, or a state they may not know).
    @exclusivity(unchecked) private var sublayerEdits: [SublayerEdit]? = []
    /// At most this many edits are described; more, and the whole list is.
    private static let maximumSublayerEdits = 64

    /// The one funnel for sublayer changes: recorded as edits for the renderers (a list of
    /// 10⁵ sublayers with one inserted is not described whole).
    private func noteSublayerEdit(_ edit: SublayerEdit) {
        if !pendingChanges.contains(.sublayers) { sublayerEdits = [] }
        if sublayerEdits != nil, sublayerEdits!.count < Layer.maximumSublayerEdits, describesSublayersAsEdits {
            sublayerEdits!.append(edit)
        } else {
            sublayerEdits = nil
        }
        changed(.sublayers)
    }

    /// Whether the renderers can be told sublayer changes as edits of `sublayers` (a layer
    /// whose `renderSublayers` are not its sublayers — a tiled layer's tiles — is described whole).
    var describesSublayersAsEdits: Bool { true }

    /// Frees the sublayers without recursion: a 100 000-deep chain is freed in a loop (a
    /// `deinit` per level would overflow the stack). Sublayers held elsewhere stay alive
    /// with their subtrees.
    isolated deinit {
        transactionContext.forget(self)
        // Its sublayers, mask and parts that live on lose their render parent (weak
        // references cleared without a didSet).
        Layer.noteRenderParentChange()
        var stack = sublayerList.removeAll()
        while var l = stack.popLast() {
            if isKnownUniquelyReferenced(&l) {
                stack += l.sublayerList.removeAll()   // freed below without reaching its sublayers
            }
        }
    }
    /// True when `self` is `layer` or lies below it.
    public func isDescendant(of layer: Layer) -> Bool {
        var l: Layer? = self
        while let current = l {
            if current === layer { return true }
            l = current.superlayer
        }
        return false
    }

    /// The top of this layer's tree (a mask layer's: its owner's).
    public var rootLayer: Layer {
        var l = self
        while let s = l.renderParent { l = s }
        return l
    }

    // MARK: Mask

    /// A layer whose alpha (its contents, background and sublayers, with its own geometry
    /// in this layer's space) masks this layer and its sublayers (`CALayer.mask`):
    /// antialiased, under any transform, combined with `masksToBounds`, `cornerRadius` and
    /// opacity. A mask is in no tree of its own (its `superlayer` is nil); setting a layer
    /// that has a superlayer or masks another layer takes it from there. A layer and its
    /// mask composite as one offscreen image, multiplied by the mask's image (each kept
    /// until something in it changes). A mask that would make a cycle (this layer, or a layer
    /// above it) is refused: the property keeps its value.
    @exclusivity(unchecked) public var mask: Layer? {
        didSet {
            guard mask !== oldValue else { return }
            // A cycle (the mask is this layer, or above it through superlayers and masks): refused.
            if let new = mask {
                var l: Layer? = self
                while let c = l {
                    if c === new { mask = oldValue; return }
                    l = c.renderParent
                }
            }
            if let old = oldValue, old.maskOwner === self { old.maskOwner = nil }
            if let new = mask {
                new.removeFromSuperlayer()
                if let previous = new.maskOwner, previous !== self { previous.mask = nil }
                new.maskOwner = self
                new.subtreeInserted()
            }
            changed([.sublayers, .effects])
        }
    }
    /// The layer this one masks (nil: none).
    @exclusivity(unchecked) public internal(set) weak var maskOwner: Layer? { didSet { Layer.noteRenderParentChange() } }
    /// The layer that keeps this one as a part of itself, outside its sublayers (a tiled
    /// layer's tiles).
    @exclusivity(unchecked) weak var internalOwner: Layer? { didSet { Layer.noteRenderParentChange() } }
    /// The layer above this one for rendering, timing and delivery: its superlayer, the
    /// layer it masks, or the layer it is a part of.
    var renderParent: Layer? { superlayer ?? maskOwner ?? internalOwner }
    /// What renderers draw as this layer's sublayers (a tiled layer puts its tiles first).
    var renderSublayers: [Layer] { sublayers }
    /// Sublayers and the mask: what renderers hold below this layer.
    package var renderChildren: [Layer] {
        guard let m = mask else { return renderSublayers }
        return renderSublayers + [m]
    }

    /// The whole state of every layer of the tree under this one, itself included (a
    /// renderer's first snapshot), with the uploads of their backing stores.
    package func subtreeSnapshot() -> (states: [LayerID: LayerState], uploads: [ContentUpload]) {
        var states: [LayerID: LayerState] = [:]
        var uploads: [ContentUpload] = []
        var stack = [self]
        while let l = stack.popLast() {
            states[l.id] = l.wholeState
            if case .backingStore(let store)? = l.contents { uploads.append(store.upload()) }
            stack += l.renderChildren
        }
        return (states, uploads)
    }

    /// The properties renderers see, stored together (copied in one piece at a commit).
    @exclusivity(unchecked) var properties = LayerProperties()

    // MARK: Change tracking

    /// The layer is among the current transaction's changes.
    var changeRecorded: Bool { changeSlot >= 0 }
    /// The layer's entries in the transaction's queues (-1: none).
    @exclusivity(unchecked) var changeSlot = -1, layoutSlot = -1, displaySlot = -1
    /// What changed since its state was last handed to the renderers.
    @exclusivity(unchecked) var pendingChanges: LayerChanges = []

    /// The one funnel for change: the layer joins the current transaction's changes (once
    /// per commit), which hands its state — and what changed — to the renderers.
    func changed(_ what: LayerChanges) {
        guard modelLayerReference == nil else { return }   // a presentation copy: never shown
        pendingChanges.formUnion(what)
        transactionContext.noteChanged(self)
    }

    /// A subtree was (re)inserted: every layer of it is described whole at the commit, and
    /// its drawn content uploaded whole (a renderer may never have seen it).
    ///
    /// A subtree already described whole since the last delivery is not walked again (so
    /// building a deep tree bottom-up costs O(size), not O(size²)).
    func subtreeInserted() {
        // A subtree made in another transaction context joins this tree's (O(subtree), only then).
        if let owner = renderParent, owner.transactionContext !== transactionContext {
            let context = owner.transactionContext
            var stack: [Layer] = [self]
            while let l = stack.popLast() {
                context.adopt(l)
                stack += l.renderChildren
            }
        }
        transactionContext.invalidateAnimationEvents()   // its timing chain changed
        var stack: [Layer] = [self]
        while let l = stack.popLast() {
            guard !l.subtreeDescribed else { continue }
            l.subtreeDescribed = true
            l.changed(.all)
            if case .backingStore(let store)? = l.contents { transactionContext.noteNeedsFullUpload(store) }
            stack += l.renderChildren
        }
    }
    /// The layer and its whole subtree are among the current transaction's changes,
    /// described whole (`subtreeInserted()`), until the next delivery.
    @exclusivity(unchecked) var subtreeDescribed = false
    /// What the last commit's look-up of hosted trees found for this layer: its stamp
    /// (above bit 0) and whether the layer is in a hosted tree (bit 0) (`HostedTrees`).
    @exclusivity(unchecked) var hostedMark: UInt64 = 0

    /// Tells the renderers that the pixels of a `.texture` contents changed (Lamina cannot
    /// see GPU writes): the layer is composited again at the next frame.
    public func contentsDidChange() { changed(.pixels) }

    // MARK: Animations (see Animation/LayerAnimations.swift)

    /// The animations added, in order (later ones apply over earlier ones).
    @exclusivity(unchecked) var addedAnimations: [AddedAnimation] = []
    /// The model layer of a presentation copy (nil for a model layer).
    @exclusivity(unchecked) var modelLayerReference: Layer?
    /// While the layer displays with an animation of one of its own keys running: the
    /// values of those keys shown now (`value(forKey:)` gives them).
    var drawingValues: [String: AnimationValue]?
    /// The local time the layer's animated own keys were last looked at (a paused layer
    /// draws again only when it changes).
    var drawnAnimationTime = Double.nan
    /// The layer was handed to the renderers (it is in a rendered tree): its animatable
    /// properties run actions when they change.
    @exclusivity(unchecked) var wasDelivered = false
    /// Actions by key, looked up after the delegate (`CALayer.actions`); a nil entry
    /// means no action for that key.
    public var actions: [String: (any LayerAction)?]?

    /// The state the renderer needs (`LayerState`). Animations added to begin at the
    /// commit begin now (in the layer's time).
    package var state: LayerState { makeState(whole: false) }

    /// Brings what the renderers are told up to date before they are (labels for messages).
    func willDescribe() {
        // Only a layer with a shader effect needs its label (`String(describing:)` of the
        // type is a dynamic cast: a fifth of S1's commit when it ran for every layer).
        guard var effect = properties.shaderEffect else { return }
        let label = name.map { "'\($0)'" } ?? String(describing: type(of: self))
        if effect.label != label {
            effect.label = label
            properties.shaderEffect = effect
        }
    }

    /// The contents a GL layer's drawing makes (`GLLayer`), shown in place of `contents`.
    var glContentReference: GLContentRef? { nil }

    /// The layer's change as a `GeometryUpdate`, when that is all it is: only geometry,
    /// zPosition, opacity or isHidden changed, the renderers know the layer, and it has no
    /// animations or out-of-line properties (whose renderer state `makeState` keeps).
    package var geometryUpdate: GeometryUpdate? {
        guard wasDelivered, addedAnimations.isEmpty, !properties.hasRareProperties else { return nil }
        return GeometryUpdate(id: id, changes: pendingChanges, bounds: properties.bounds, position: properties.position,
                              anchorPoint: properties.anchorPoint, anchorPointZ: properties.anchorPointZ,
                              zPosition: properties.zPosition, transform: properties.transform,
                              sublayerTransform: properties.sublayerTransform, isDoubleSided: properties.isDoubleSided,
                              opacity: properties.opacity, isHidden: properties.isHidden)
    }

    /// The state described whole, for a renderer that knows nothing of the tree (a snapshot):
    /// the whole sublayer list; the edits pending for the next delivery are kept.
    package var wholeState: LayerState { makeState(whole: true) }

    private func makeState(whole: Bool) -> LayerState {
        willDescribe()
        wasDelivered = true
        if addedAnimations.contains(where: \.beginsAtCommit) {
            let now = localTime(at: MediaClock.now())
            addedAnimations = addedAnimations.map { $0.beginsAtCommit ? $0.begun(at: now) : $0 }
            transactionContext.invalidateAnimationEvents()
        }
        var ref = contents?.reference
        if case .external(let b)? = contents { ref = .external(ExternalRef(buffer: b, lend: contentsLend)) }
        if let g = glContentReference { ref = .gl(g) }
        // Sublayer changes as edits when the renderers know the list they apply to; the list
        // whole only when it changed otherwise (or for a snapshot): renderers read it only then.
        let edits = !whole && pendingChanges.contains(.sublayers) && pendingChanges != .all ? sublayerEdits : nil
        if !whole { sublayerEdits = [] }
        let listed = edits == nil && (whole || pendingChanges.contains(.sublayers))
        return LayerState(id: id, properties: properties, preservesDepth: preservesDepth, contents: ref,
                          sublayers: listed ? renderSublayers.map(\.id) : [], sublayerEdits: edits, mask: mask?.id,
                          changes: pendingChanges, effects: addedAnimations.map(\.effect))
    }

    // MARK: Geometry

    /// Whether a value assigned to `property` is accepted; a refused one is reported
    /// (`Layer.invalidValueHandler`) and the property keeps its value.
    func accepts(_ valid: Bool, _ property: String, _ value: @autoclosure () -> Any) -> Bool {
        if !valid {
            Layer.invalidValueHandler?(InvalidLayerValue(layer: name ?? String(describing: type(of: self)), layerID: id,
                                                         property: property, value: String(describing: value())))
        }
        return valid
    }

    /// Called with every value a layer refused. Geometry that is not finite — a NaN or
    /// infinite coordinate in `bounds`, `position`, `frame`, `anchorPoint`, `anchorPointZ`,
    /// `zPosition`, `transform`, `sublayerTransform`, `contentsRect`, `contentsCenter` —
    /// is refused (Core Animation raises `CALayerInvalidGeometry`; a Swift setter cannot
    /// throw, so the property keeps its value), as are a NaN `opacity`, a non-finite
    /// `borderWidth`/`cornerRadius`/colour and a `contentsScale` outside `PixelScale`
    /// (1/4096 to 4096, not subnormal). The default logs a warning (`LaminaLog.logger`); set it to collect
    /// the reports (tests) or to nil to ignore them.
    public static var invalidValueHandler: ((InvalidLayerValue) -> Void)? = { report in
        LaminaLog.logger.warning("\(report)")
    }

    public var bounds: Rect {
        get { properties.bounds }
        set {
            let oldValue = properties.bounds
            guard accepts(newValue.isFinite, "bounds", newValue), newValue != oldValue else { return }
            actionWillChange("bounds", from: .rect(oldValue))
            properties.bounds = newValue
            changed(.geometry)
            if newValue.size != oldValue.size {
                setNeedsLayout()
                if needsDisplayOnBoundsChange { invalidate(nil, reason: .boundsChanged) }
            }
        }
    }
    public var position: Point {
        get { properties.position }
        set { if accepts(newValue.isFinite, "position", newValue), newValue != properties.position { actionWillChange("position", from: .point(properties.position)); properties.position = newValue; changed(.geometry) } }
    }
    /// The point of the bounds (unit coordinates) placed at `position`, and the centre of `transform`.
    public var anchorPoint: Point {
        get { properties.anchorPoint }
        set { if accepts(newValue.isFinite, "anchorPoint", newValue), newValue != properties.anchorPoint { actionWillChange("anchorPoint", from: .point(properties.anchorPoint)); properties.anchorPoint = newValue; changed(.geometry) } }
    }
    public var anchorPointZ: Double {
        get { properties.anchorPointZ }
        set { if accepts(newValue.isFinite, "anchorPointZ", newValue), newValue != properties.anchorPointZ { actionWillChange("anchorPointZ", from: .number(properties.anchorPointZ)); properties.anchorPointZ = newValue; changed(.geometry) } }
    }
    /// The layer's z in its superlayer; siblings are drawn in increasing zPosition.
    public var zPosition: Double {
        get { properties.zPosition }
        set { if accepts(newValue.isFinite, "zPosition", newValue), newValue != properties.zPosition { actionWillChange("zPosition", from: .number(properties.zPosition)); properties.zPosition = newValue; changed(.zPosition) } }
    }
    public var transform: Transform3D {
        get { properties.transform }
        set { if accepts(newValue.isFinite, "transform", newValue), newValue != properties.transform { actionWillChange("transform", from: .transform(properties.transform)); properties.transform = newValue; changed(.geometry) } }
    }
    /// Applied to the sublayers, about this layer's anchor point (e.g. perspective via m34).
    public var sublayerTransform: Transform3D {
        get { properties.sublayerTransform }
        set { if accepts(newValue.isFinite, "sublayerTransform", newValue), newValue != properties.sublayerTransform { actionWillChange("sublayerTransform", from: .transform(properties.sublayerTransform)); properties.sublayerTransform = newValue; changed(.geometry) } }
    }
    /// When false, the layer (with its sublayers) is not drawn while it faces away.
    public var isDoubleSided: Bool {
        get { properties.isDoubleSided }
        set { if newValue != properties.isDoubleSided { properties.isDoubleSided = newValue; changed(.geometry) } }
    }

    // MARK: Appearance

    public var backgroundColor: Color? {
        get { properties.backgroundColor }
        set { if accepts(newValue?.isFinite ?? true, "backgroundColor", newValue as Any), newValue != properties.backgroundColor { actionWillChange("backgroundColor", from: .color(properties.backgroundColor)); properties.backgroundColor = newValue; changed(.background) } }
    }
    /// 0…1 (values outside are clamped; not a number is refused). With `allowsGroupOpacity`, the layer and its sublayers fade as one image.
    public var opacity: Double {
        get { properties.opacity }
        set {
            guard accepts(!newValue.isNaN, "opacity", newValue) else { return }
            let v = min(1, max(0, newValue))   // presented clamped, as Core Animation does
            if v != properties.opacity { actionWillChange("opacity", from: .number(properties.opacity)); properties.opacity = v; changed(.opacity) }
        }
    }
    public var allowsGroupOpacity: Bool {
        get { properties.allowsGroupOpacity }
        set { if newValue != properties.allowsGroupOpacity { properties.allowsGroupOpacity = newValue; changed(.groupOpacity) } }
    }
    public var isHidden: Bool {
        get { properties.isHidden }
        set { if newValue != properties.isHidden { properties.isHidden = newValue; changed(.hidden) } }
    }
    /// Drawn inside the bounds, above contents and sublayers.
    public var borderWidth: Double {
        get { properties.borderWidth }
        set { if accepts(newValue.isFinite, "borderWidth", newValue), newValue != properties.borderWidth { actionWillChange("borderWidth", from: .number(properties.borderWidth)); properties.borderWidth = newValue; changed(.border) } }
    }
    public var borderColor: Color {
        get { properties.borderColor }
        set { if accepts(newValue.isFinite, "borderColor", newValue), newValue != properties.borderColor { actionWillChange("borderColor", from: .color(properties.borderColor)); properties.borderColor = newValue; changed(.border) } }
    }
    /// Rounds the background and border; with `masksToBounds`, clips contents and sublayers too.
    public var cornerRadius: Double {
        get { properties.cornerRadius }
        set { if accepts(newValue.isFinite, "cornerRadius", newValue), newValue != properties.cornerRadius { actionWillChange("cornerRadius", from: .number(properties.cornerRadius)); properties.cornerRadius = newValue; changed(.cornerRadius) } }
    }
    /// Which corners `cornerRadius` rounds (`CALayer.maskedCorners`; all by default): the
    /// background, border, gradient, shadow and — with `masksToBounds` — the clip follow it.
    /// Not animatable (as Core Animation's).
    public var maskedCorners: CornerMask {
        get { properties.maskedCorners }
        set { if newValue != properties.maskedCorners { properties.maskedCorners = newValue; changed(.cornerRadius) } }
    }
    /// The curve of the rounded corners (`CALayer.cornerCurve`): circular (the default) or
    /// continuous. Not animatable (as Core Animation's).
    public var cornerCurve: CornerCurve {
        get { properties.cornerCurve }
        set { if newValue != properties.cornerCurve { properties.cornerCurve = newValue; changed(.cornerRadius) } }
    }
    /// Clips contents and sublayers to the (rounded) bounds, exactly under any transform.
    public var masksToBounds: Bool {
        get { properties.masksToBounds }
        set { if newValue != properties.masksToBounds { properties.masksToBounds = newValue; changed(.masksToBounds) } }
    }
    /// A promise that the layer's contents fill its bounds opaquely.
    public var isOpaque: Bool {
        get { properties.isOpaque }
        set { if newValue != properties.isOpaque { properties.isOpaque = newValue; changed(.contents) } }
    }

    // MARK: Contents

    /// What the layer shows: an image or texture set directly (no drawing), or the backing
    /// store its `display()` drew. Setting it replaces drawn content.
    @exclusivity(unchecked) public var contents: LayerContents? {
        didSet {
            guard !(contents?.isSame(as: oldValue) ?? (oldValue == nil)) else { return }
            // (The action runs after the change here: it needs only the old contents, and
            // cross-fades from them to whatever the layer shows.)
            // External buffers change frames without a cross-fade (as a video layer's do):
            // the old frame's pixels may be overwritten by then.
            if case .external(let b)? = contents { contentsLend = b.newFrame() }
            let external: Bool
            switch (contents, oldValue) {
            case (.external?, _), (_, .external?): external = true
            default: external = false
            }
            if !suppressesContentsAction && !external { actionWillChange("contents", from: .contents(oldValue?.reference)) }
            if case .backingStore(let s)? = contents {
                if s !== backingStore { backingStore = nil }
                transactionContext.noteNeedsFullUpload(s)   // renderers may not have it
            } else {
                backingStore = nil
            }
            changed(.contents)
        }
    }
    static let unitRect = Rect(x: 0, y: 0, width: 1, height: 1)
    /// Which lend of an external buffer the contents are (`ExternalRef`).
    private var contentsLend: UInt64 = 0
    private var suppressesContentsAction = false
    /// Runs `body` (which sets `contents`) without the contents action.
    func withoutContentsAction(_ body: () -> Void) {
        suppressesContentsAction = true
        defer { suppressesContentsAction = false }
        body()
    }

    /// The part of the contents shown, in unit coordinates of the image (y down).
    public var contentsRect: Rect {
        get { properties.contentsRect }
        set { if accepts(newValue.isFinite, "contentsRect", newValue), newValue != properties.contentsRect { actionWillChange("contentsRect", from: .rect(properties.contentsRect)); properties.contentsRect = newValue; changed(.contents) } }
    }
    /// The stretchable part of the contents (nine-slice), a unit rectangle of the shown
    /// image (after `contentsRect`). Outside it, the image keeps its size in points (through
    /// `contentsScale`): corners unscaled, top/bottom edges stretched horizontally only,
    /// left/right edges vertically only, the centre both ways. Caps shrink proportionally
    /// when the layer is smaller than they are. A zero width or height replicates the one
    /// column or row of pixels at that position. Stretching is done by the GPU: resizing
    /// never redraws or re-uploads. The unit rectangle (default) stretches everything.
    public var contentsCenter: Rect {
        get { properties.contentsCenter }
        set { if accepts(newValue.isFinite, "contentsCenter", newValue), newValue != properties.contentsCenter { actionWillChange("contentsCenter", from: .rect(properties.contentsCenter)); properties.contentsCenter = newValue; changed(.contents) } }
    }
    public var contentsGravity: ContentsGravity {
        get { properties.contentsGravity }
        set { if newValue != properties.contentsGravity { properties.contentsGravity = newValue; changed(.contents) } }
    }
    /// Pixels of the contents per point (`PixelScale`: 1/4096 to 4096; other values are refused).
    public var contentsScale: Double {
        get { properties.contentsScale }
        set { if accepts(PixelScale.isValid(newValue), "contentsScale", newValue), newValue != properties.contentsScale {
            properties.contentsScale = newValue
            changed(.contents)
            if properties.shadowMask != nil { rasterizeShadowPath() }   // (at the new scale)
        } }
    }
    public var minificationFilter: TextureFilter {
        get { properties.minificationFilter }
        set { if newValue != properties.minificationFilter { properties.minificationFilter = newValue; changed(.contents) } }
    }
    public var magnificationFilter: TextureFilter {
        get { properties.magnificationFilter }
        set { if newValue != properties.magnificationFilter { properties.magnificationFilter = newValue; changed(.contents) } }
    }

    /// The contents' size in points: the pixels of `contentsRect` over `contentsScale`.
    public var contentsSize: Size? {
        contents.map { ContentsGeometry.size(pixelSize: $0.pixelSize, contentsRect: contentsRect, contentsScale: contentsScale) }
    }

    /// Where the contents are drawn, in bounds coordinates (per `contentsGravity`).
    public var contentsFrame: Rect? {
        guard let size = contentsSize else { return nil }
        return contentsGravity.contentRect(contentSize: size, in: bounds)
    }

    // MARK: Actions (implicit animations; see Animation/LayerAnimations.swift)

    /// The action for a change of `key` (`CALayer.action(forKey:)`): the delegate's
    /// answer, else `actions[key]`, else `defaultAction(forKey:)`.
    open func action(forKey key: String) -> (any LayerAction)? {
        if let delegate {
            switch delegate.action(for: self, forKey: key) {
            case .none: return nil
            case .action(let a): return a
            case .notHandled: break
            }
        }
        if let actions, let entry = actions[key] { return entry }   // an explicit nil entry: no action
        return Self.defaultAction(forKey: key)
    }

    /// The implicit animation of a standalone layer's property (`CALayer.defaultAction(forKey:)`):
    /// a basic animation from the value shown to the new one, with the transaction's
    /// duration and timing function, for every animatable property; nil for others.
    open class func defaultAction(forKey key: String) -> (any LayerAction)? {
        guard AnimatableProperty(keyPath: key) != nil else { return nil }
        return BasicAnimation(keyPath: key)
    }

    /// Whether a change of `key` — or an animation of it — redraws the layer
    /// (`CALayer.needsDisplay(forKey:)`): while an animation of such a key runs, the layer
    /// is displayed at every frame, drawing the values shown (`value(forKey:)` inside
    /// `display()` and `draw(in:)` gives the presented value). False by default.
    open class func needsDisplay(forKey key: String) -> Bool { false }

    /// True for layers that keep a shared 3D space for their sublayers (TransformLayer).
    open var preservesDepth: Bool { false }

    // MARK: Display (on-demand drawing; see Display.swift)

    /// Draws the layer's content (`draw(_:in:)`) and lays out its sublayers when asked.
    public weak var delegate: LayerDelegate?
    /// Redraw when the bounds' size changes (`.redraw`); otherwise the old snapshot is
    /// stretched or pinned per `contentsGravity`.
    public var needsDisplayOnBoundsChange = false
    /// The content is invalid and will be drawn at the end of the turn (or by `displayIfNeeded()`).
    public internal(set) var needsDisplay = false
    /// Union of the invalidated rectangles (bounds coordinates); nil: the whole bounds.
    var dirtyRect: Rect?
    var pendingDisplayReasons: [DisplayReason] = []
    /// The bitmap and texture `display()` draws into.
    public internal(set) var backingStore: BackingStore?
    /// How many times the layer's content was drawn.
    public internal(set) var displayCount = 0
    /// The last draw: why, which rectangle, how many bytes went to the GPU.
    public internal(set) var lastDisplay: DisplayRecord?

    /// The layer's `layoutSublayers()` will run at the end of the turn.
    public internal(set) var needsLayout = false

    /// Draws the content into the backing store and uploads the redrawn pixels. Override
    /// to provide content another way (e.g. set `contents`); the delegate's
    /// `display(_:)` can do the same.
    open func display() throws {
        if let delegate, delegate.display(self) { return }
        try drawIntoBackingStore()
    }

    /// Draws the layer's content. The default asks the delegate. Override in subclasses;
    /// the context is clipped to the rectangle being redrawn (`context.clipBoundingBox`).
    open func draw(in context: GraphicsContext) {
        delegate?.draw(self, in: context)
    }

    /// Positions the sublayers. The default asks the delegate.
    open func layoutSublayers() {
        delegate?.layoutSublayers(of: self)
    }
}

/// Like `CATransformLayer`: its sublayers share one 3D space (they are not flattened
/// into its plane) and are drawn back to front by depth. It draws nothing itself:
/// background, contents, border and masking are ignored.
@MainActor
public final class TransformLayer: Layer {
    public override var preservesDepth: Bool { true }
}

/// A value a layer refused (see `Layer.invalidValueHandler`).
public struct InvalidLayerValue: Sendable, Equatable, CustomStringConvertible {
    /// The layer's name, or its type.
    public var layer: String
    public var layerID: LayerID
    /// The property assigned, e.g. "bounds".
    public var property: String
    /// The value refused, as text.
    public var value: String

    public var description: String {
        "layer '\(layer)' refused \(property) = \(value): geometry must be finite (Core Animation raises CALayerInvalidGeometry), opacity a number, contentsScale a number from 1/4096 to 4096 (PixelScale); the property keeps its value"
    }
}

// (SPI: `SlotList` is SPI-public so that other modules specialize it; see SlotList.swift.)
@_spi(LaminaInternal) extension Layer: @MainActor SlotListElement {}
