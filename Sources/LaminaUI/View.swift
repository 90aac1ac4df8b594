import LaminaCore
import LaminaGeometry
import LaminaGraphics
@_spi(LaminaInternal) import LaminaValues

/// Which margins and sizes of a view follow its superview's size (`UIView.AutoresizingMask`).
public struct AutoresizingMask: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let flexibleLeftMargin = AutoresizingMask(rawValue: 1 << 0)
    public static let flexibleWidth = AutoresizingMask(rawValue: 1 << 1)
    public static let flexibleRightMargin = AutoresizingMask(rawValue: 1 << 2)
    public static let flexibleTopMargin = AutoresizingMask(rawValue: 1 << 3)
    public static let flexibleHeight = AutoresizingMask(rawValue: 1 << 4)
    public static let flexibleBottomMargin = AutoresizingMask(rawValue: 1 << 5)
}

/// The graphics context of the `draw(_:)` running now (`UIGraphicsGetCurrentContext`).
@MainActor
public func currentGraphicsContext() -> GraphicsContext? { View.contextStack.last }

/// A rectangle on screen that draws content, lays out subviews and handles touches
/// (`UIView`). Every view is backed by a layer (`layerClass`) and is its delegate.
@MainActor
open class View: Responder, LayerDelegate {
    /// The kind of layer backing views of this class.
    open class var layerClass: Layer.Type { Layer.self }

    public let layer: Layer
    /// The subviews, back to front.
    public var subviews: [View] { subviewList.elements() }
    /// The subviews' storage: removing any subview is O(1) (`SlotList`, as `Layer`'s sublayers).
    private var subviewList = SlotList<View>()
    /// This view's slot in its superview's list.
    @_spi(LaminaInternal) public var slotIndex = -1
    public private(set) weak var superview: View?
    public var tag = 0
    public var isUserInteractionEnabled = true
    /// Animations of an animation block without `.allowUserInteraction` running on this
    /// view: while any does, it is not hit (UIKit's behaviour).
    var animationsBlockingInteraction = 0
    /// Subviews follow this view's size changes per their `autoresizingMask`.
    public var autoresizesSubviews = true
    public var autoresizingMask: AutoresizingMask = []
    /// The superview's size this view's frame was last set or autoresized for.
    var autoresizeBase: Size?

    public init(frame: Rect = .zero) {
        layer = Self.layerClass.init()
        super.init()
        layer.delegate = self
        layer.name = String(describing: type(of: self))
        layer.frame = frame
        layer.contentsScale = 1
        layer.setNeedsDisplay()   // drawn when first shown (unless the class does not draw)
    }

    open override var next: Responder? { superview }

    override var firstResponderWindow: Window? { window }

    // MARK: Geometry (the layer's)

    /// The view's rectangle in its superview (undefined under a non-identity transform, as
    /// in UIKit: use `center` and `bounds` then).
    public var frame: Rect {
        get { layer.frame }
        set { layer.frame = newValue; autoresizeBase = superview?.bounds.size }
    }
    public var bounds: Rect {
        get { layer.bounds }
        set { layer.bounds = newValue; autoresizeBase = superview?.bounds.size }
    }
    /// The centre in the superview's coordinates (the layer's position; anchor in the middle).
    public var center: Point {
        get { layer.position }
        set { layer.position = newValue; autoresizeBase = superview?.bounds.size }
    }
    /// An affine transform about the centre. One with an element that is not finite is
    /// refused (reported through `Layer.invalidValueHandler`; the view keeps its transform).
    public var transform: Transform2D = .identity {
        didSet {
            layer.transform = transform.transform3D
            if layer.transform != transform.transform3D { transform = oldValue }   // refused by the layer
        }
    }
    /// 0…1: values outside are clamped, not a number is refused (the layer's `opacity`).
    public var alpha: Double {
        get { layer.opacity }
        set { layer.opacity = newValue }
    }
    public var isHidden: Bool {
        get { layer.isHidden }
        set { layer.isHidden = newValue }
    }
    public var backgroundColor: Color? {
        get { layer.backgroundColor }
        set { layer.backgroundColor = newValue }
    }
    public var clipsToBounds: Bool {
        get { layer.masksToBounds }
        set { layer.masksToBounds = newValue }
    }
    public var isOpaque: Bool {
        get { layer.isOpaque }
        set { layer.isOpaque = newValue }
    }

    // MARK: Hierarchy

    /// The window the view is in, if any.
    public var window: Window? {
        var v: View? = self
        while let current = v {
            if let w = current as? Window { return w }
            v = current.superview
        }
        return nil
    }

    public func addSubview(_ view: View) { insertSubview(view, at: Int.max) }

    public func insertSubview(_ view: View, at index: Int) {
        // A view without subviews can only be an ancestor by being this one.
        guard view !== self, view.subviewList.isEmpty || !isDescendant(of: view) else { return }
        let oldWindow = view.window
        let newWindow = window
        let reparenting = view.superview !== self
        if reparenting {
            view.superview?.willRemoveSubview(view)
            view.willMove(toSuperview: self)
        }
        if oldWindow !== newWindow {
            view.notifyWillMove(toWindow: newWindow)
            oldWindow?.subtreeWillLeave(view)
        }
        var i = max(0, min(index, subviewList.count))
        if view.superview === self {
            if let old = subviewList.index(of: view), old < i { i -= 1 }
            subviewList.remove(view)
        } else {
            view.detach()
        }
        i = min(i, subviewList.count)
        subviewList.insert(view, at: i)
        view.superview = self
        if reparenting { view.autoresizeBase = bounds.size }
        // Keep the layer order equal to the view order.
        let below = subviewList.element(after: view)?.layer
        if let below { layer.insertSublayer(view.layer, below: below) } else { layer.addSublayer(view.layer) }
        if oldWindow !== newWindow { view.notifyDidMoveToWindow() }
        if reparenting {
            view.didMoveToSuperview()
            didAddSubview(view)
        }
    }

    public func insertSubview(_ view: View, aboveSubview sibling: View) {
        guard sibling.superview === self, let i = subviewList.index(of: sibling) else { return addSubview(view) }
        insertSubview(view, at: i + 1)
    }

    public func insertSubview(_ view: View, belowSubview sibling: View) {
        guard sibling.superview === self, let i = subviewList.index(of: sibling) else { return insertSubview(view, at: 0) }
        insertSubview(view, at: i)
    }

    public func bringSubviewToFront(_ view: View) {
        guard view.superview === self else { return }
        insertSubview(view, at: Int.max)
    }

    public func sendSubviewToBack(_ view: View) {
        guard view.superview === self else { return }
        insertSubview(view, at: 0)
    }

    public func removeFromSuperview() {
        guard let parent = superview else { return }
        let oldWindow = window
        parent.willRemoveSubview(self)
        willMove(toSuperview: nil)
        if let oldWindow {
            notifyWillMove(toWindow: nil)
            oldWindow.subtreeWillLeave(self)
        }
        detach()
        if oldWindow != nil { notifyDidMoveToWindow() }
        didMoveToSuperview()
    }

    private func detach() {
        guard let parent = superview else { return }
        superview = nil
        parent.subviewList.remove(self)
        layer.removeFromSuperlayer()
    }

    public func isDescendant(of view: View) -> Bool {
        var v: View? = self
        while let current = v { if current === view { return true }; v = current.superview }
        return false
    }

    /// Hooks, as in UIKit.
    open func willMove(toSuperview newSuperview: View?) {}
    open func didMoveToSuperview() {}
    open func willMove(toWindow newWindow: Window?) {}
    open func didMoveToWindow() {}
    open func didAddSubview(_ subview: View) {}
    open func willRemoveSubview(_ subview: View) {}

    /// The view and its subtree, parents before their subviews, in order (an explicit
    /// stack: no recursion per level).
    func forEachInSubtree(_ body: (View) -> Void) {
        var stack: [View] = [self]
        while let v = stack.popLast() {
            body(v)
            stack += v.subviews.reversed()
        }
    }

    private func notifyWillMove(toWindow w: Window?) {
        forEachInSubtree { $0.willMove(toWindow: w) }
    }

    private func notifyDidMoveToWindow() {
        let w = window
        forEachInSubtree { v in
            if let w, v.layer.contentsScale != w.scale {
                v.layer.contentsScale = w.scale
                if !v.drawsNothing { v.layer.setNeedsDisplay() }
            }
            v.didMoveToWindow()
        }
    }

    /// The window's scale changed (it moved to a target of another scale): every view's
    /// layer takes the new `contentsScale`, and views showing drawn content are redrawn at
    /// it (as UIKit redraws on a display-scale trait change).
    func windowScaleDidChange(to scale: Double) {
        forEachInSubtree { v in
            if v.layer.contentsScale != scale {
                v.layer.contentsScale = scale
                if let store = v.layer.backingStore, store.scale != scale { v.setNeedsDisplay() }
            }
        }
    }

    /// Frees the subviews without recursion (a `deinit` per level would overflow the stack
    /// for a deep chain); subviews held elsewhere stay alive with their subtrees.
    isolated deinit {
        var stack = subviewList.removeAll()
        while var v = stack.popLast() {
            if isKnownUniquelyReferenced(&v) { stack += v.subviewList.removeAll() }
        }
    }

    // MARK: Coordinates

    /// Converts a point from this view's coordinates to `view`'s (nil: the window's).
    public func convert(_ point: Point, to view: View?) -> Point {
        let target = view?.layer ?? window?.layer
        return layer.convert(point, to: target) ?? point
    }

    /// Converts a point from `view`'s coordinates (nil: the window's) to this view's.
    public func convert(_ point: Point, from view: View?) -> Point {
        let source = view?.layer ?? window?.layer
        return layer.convert(point, from: source) ?? point
    }

    public func convert(_ rect: Rect, to view: View?) -> Rect {
        layer.convert(rect, to: view?.layer ?? window?.layer) ?? rect
    }

    public func convert(_ rect: Rect, from view: View?) -> Rect {
        layer.convert(rect, from: view?.layer ?? window?.layer) ?? rect
    }

    // MARK: Drawing

    static var contextStack: [GraphicsContext] = []
    /// View classes whose `draw(_:)` is the base one (Lamina's own): their views draw only
    /// when code asks (`setNeedsDisplay()`), keeping no bitmap otherwise. Whether another
    /// class draws is decided per view (`drawsNothing`), never for the whole class.
    static let classesThatDoNotDraw: Set<ObjectIdentifier> = [
        ObjectIdentifier(View.self), ObjectIdentifier(Window.self),
        ObjectIdentifier(ScrollView.self), ObjectIdentifier(TiledScrollView.self),
    ]
    private var drewWithBaseImplementation = false
    /// This view's last draw reached the base `draw(_:)` and painted nothing (or its class
    /// is one of Lamina's that never draws): automatic redraws (a new window scale) skip
    /// it, until a draw paints. One view's draw says nothing of other views of its class.
    private var drawsNothing: Bool {
        get { drewNothing || View.classesThatDoNotDraw.contains(ObjectIdentifier(type(of: self))) }
    }
    private var drewNothing = false

    /// Draws the view's content in `rect` (bounds coordinates) with
    /// `currentGraphicsContext()`, set up as UIKit does: origin at the bounds origin, scaled,
    /// clipped to `rect`. Override to draw; never call it yourself — invalidate with
    /// `setNeedsDisplay()`. Views that only show a colour, or set `layer.contents`, need not.
    open func draw(_ rect: Rect) {
        drewWithBaseImplementation = true
    }

    /// Asked for by code (not only the first display): draw even if the class was found
    /// not to draw.
    private var invalidatedByCode = false

    public func setNeedsDisplay() { invalidatedByCode = true; layer.setNeedsDisplay() }
    public func setNeedsDisplay(_ rect: Rect) { invalidatedByCode = true; layer.setNeedsDisplay(rect) }

    /// Seed 002: redraws now (`setNeedsDisplay()` + `displayIfNeeded()`) and composites, so
    /// the new content is on the window's target when this returns.
    public func displayNow() throws {
        try layer.displayNow()
        try window?.compositeNow()
    }

    /// How the snapshot follows bounds changes. `.redraw` redraws; the others reuse it.
    public var contentMode: ContentMode = .scaleToFill { didSet { applyContentMode() } }
    /// The stretchable part of the view (unit rectangle of its bounds); only the scaling
    /// content modes use it (seed 003).
    public var contentStretch = Rect(x: 0, y: 0, width: 1, height: 1) { didSet { applyContentMode() } }

    private func applyContentMode() { layer.apply(contentMode: contentMode, contentStretch: contentStretch) }

    // LayerDelegate
    public func display(_ layer: Layer) -> Bool {
        // A class known not to draw keeps no backing store, unless code asked for a draw.
        defer { invalidatedByCode = false }
        return !invalidatedByCode && View.classesThatDoNotDraw.contains(ObjectIdentifier(type(of: self)))
    }

    public func draw(_ layer: Layer, in context: GraphicsContext) {
        View.contextStack.append(context)
        defer { View.contextStack.removeLast() }
        drewWithBaseImplementation = false
        let painted = context.paintCount
        draw(context.clipBoundingBox)
        // The base draw ran and nothing was painted: this view keeps no bitmap and skips
        // automatic redraws; `setNeedsDisplay()` from code always draws.
        drewNothing = drewWithBaseImplementation && context.paintCount == painted
    }

    // MARK: Layout

    public func setNeedsLayout() { layer.setNeedsLayout() }
    public func layoutIfNeeded() { layer.layoutIfNeeded() }

    /// Positions subviews. Runs in the layout pass, after autoresizing.
    open func layoutSubviews() {}

    public func layoutSublayers(of layer: Layer) {
        let size = bounds.size
        for s in subviews {
            // Each subview follows the change since its frame was last set (or autoresized).
            if autoresizesSubviews, let base = s.autoresizeBase, base != size { s.autoresize(from: base, to: size) }
            s.autoresizeBase = size
        }
        layoutSubviews()
    }

    /// Applies `autoresizingMask` for a superview size change: the change of each axis is
    /// shared by the flexible parts (margins and size) in proportion to their current
    /// lengths (equally when all are zero), as UIKit does.
    func autoresize(from old: Size, to new: Size) {
        guard !autoresizingMask.isEmpty else { return }
        var f = frame
        func share(_ delta: Double, _ parts: [(flexible: Bool, length: Double)]) -> [Double] {
            let flexible = parts.enumerated().filter { $0.element.flexible }
            guard !flexible.isEmpty, delta != 0 else { return parts.map { _ in 0 } }
            let total = flexible.reduce(0) { $0 + max(0, $1.element.length) }
            var out = parts.map { _ in 0.0 }
            for (i, p) in flexible {
                out[i] = total > 0 ? delta * max(0, p.length) / total : delta / Double(flexible.count)
            }
            return out
        }
        let dx = share(new.width - old.width, [
            (autoresizingMask.contains(.flexibleLeftMargin), f.minX),
            (autoresizingMask.contains(.flexibleWidth), f.width),
            (autoresizingMask.contains(.flexibleRightMargin), old.width - f.maxX)])
        let dy = share(new.height - old.height, [
            (autoresizingMask.contains(.flexibleTopMargin), f.minY),
            (autoresizingMask.contains(.flexibleHeight), f.height),
            (autoresizingMask.contains(.flexibleBottomMargin), old.height - f.maxY)])
        f = Rect(x: f.minX + dx[0], y: f.minY + dy[0], width: max(0, f.width + dx[1]), height: max(0, f.height + dy[1]))
        frame = f
    }

    /// The size that best fits `size` (default: the current size).
    open func sizeThatFits(_ size: Size) -> Size { bounds.size }

    /// Resizes the view to `sizeThatFits(bounds.size)`, keeping its origin.
    public func sizeToFit() {
        let s = sizeThatFits(bounds.size)
        frame = Rect(origin: frame.origin, size: s)
    }

    // MARK: Hit testing

    /// Whether `point` (this view's coordinates) is inside the view: its bounds.
    open func point(inside point: Point, with event: Event?) -> Bool { bounds.contains(point) }

    /// The deepest visible, interactive view containing `point` (this view's coordinates):
    /// hidden views, views with alpha below 0.01 and views with user interaction disabled
    /// are skipped with their subviews; a point outside a view is outside its subviews too.
    ///
    /// The default walks the subtree in a loop, not a call per level; a subview whose class
    /// is not one of Lamina's own is asked through its own `hitTest(_:with:)` (which may be
    /// overridden), so only such levels nest calls.
    open func hitTest(_ point: Point, with event: Event?) -> View? {
        guard acceptsHit(at: point, with: event) else { return nil }
        // Each frame: a view that accepts the point, and the next of its subviews to try
        // (top-most first); when none is hit, the view itself is.
        var stack: [(view: View, point: Point, next: Int)] = [(self, point, subviews.count - 1)]
        while let top = stack.popLast() {
            guard top.next >= 0 else { return top.view }
            stack.append((top.view, top.point, top.next - 1))
            let sub = top.view.subviews[top.next]
            // No image of the point in the subview (scaled to nothing, seen edge-on): not hit.
            guard let p = sub.layer.convert(top.point, from: top.view.layer) else { continue }
            if View.hitTestedInLoop.contains(ObjectIdentifier(type(of: sub))) {
                if sub.acceptsHit(at: p, with: event) { stack.append((sub, p, sub.subviews.count - 1)) }
            } else if let hit = sub.hitTest(p, with: event) {
                return hit
            }
        }
        return nil
    }

    /// The checks of the default `hitTest` for the view itself.
    private func acceptsHit(at point: Point, with event: Event?) -> Bool {
        isUserInteractionEnabled && animationsBlockingInteraction == 0 && !isHidden && alpha >= 0.01
            && self.point(inside: point, with: event)
    }

    /// Lamina's view classes, which do not override `hitTest(_:with:)`: walked in the loop.
    private static let hitTestedInLoop: Set<ObjectIdentifier> = [
        ObjectIdentifier(View.self), ObjectIdentifier(Window.self), ObjectIdentifier(ScrollView.self),
        ObjectIdentifier(TiledScrollView.self), ObjectIdentifier(TiledScrollView.Tile.self),
    ]
}

// (SPI: `SlotList` is SPI-public so that other modules specialize it; see SlotList.swift.)
@_spi(LaminaInternal) extension View: @MainActor SlotListElement {}
