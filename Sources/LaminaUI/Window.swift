import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics

/// The root view, attached to a render target (offscreen, a GBM buffer, or a caller's
/// framebuffer) whose size and scale it takes. It commits and presents frames through the
/// transaction of each run-loop turn, and delivers the host's input: touches, key presses,
/// text, pointer moves and scroll-wheel events, each through one `send(_:)`.
@MainActor
open class Window: View {
    public let host: LayerTreeHost
    private var activeTouches: [Int: Touch] = [:]
    private var activePresses: [KeyboardHIDUsage: Press] = [:]
    /// The views containing the pointer: the hit-tested view and its superviews, the
    /// window first.
    private(set) var hoveredViews: [View] = []

    /// A window covering `target` (its size in points is the target's), cleared to
    /// `background` before each frame — nil: composited over what the target holds (a
    /// host's frame; see `LayerTreeHost.compositesEveryFrame`).
    public init(target: RenderTarget, background: Color? = .white) {
        host = LayerTreeHost(rootLayer: Layer(), target: target, background: background)
        super.init(frame: Rect(origin: .zero, size: target.size))
        host.rootLayer.addSublayer(layer)
        layer.contentsScale = target.scale
    }

    /// The window is the last responder.
    open override var next: Responder? { nil }

    /// The last frame composited.
    public var lastFrame: FrameStatistics { host.lastFrame }

    /// Commits now: layout, display and composite of everything pending.
    public func compositeNow() throws { try Transaction.flush() }

    // MARK: Target (size, scale, device)

    /// Pixels per point: the target's.
    public var scale: Double { host.target.scale }

    /// Where the window is shown. Setting another target moves the window there — as
    /// UIKit does when a window's size or screen changes:
    /// - another size: the window's frame takes it now; autoresizing of the subviews and
    ///   `layoutSubviews()` run in the next commit (seed 004's order), and views whose
    ///   `contentMode` is `.redraw` redraw;
    /// - another scale: every view's layer takes it as `contentsScale` and views showing
    ///   drawn content are redrawn at it in the next commit;
    /// - another device: the compositor follows (`LayerTreeHost.target`).
    /// The next commit composites into the new target only. The window never releases a
    /// target: the host may release the old one as soon as this returns (or before, if no
    /// commit runs in between).
    public var target: RenderTarget {
        get { host.target }
        set {
            let old = host.target
            guard newValue !== old else { return }
            // Only stored properties of the old target are read: it may be released already.
            let oldScale = old.scale
            host.target = newValue
            if frame.size != newValue.size { frame = Rect(origin: frame.origin, size: newValue.size) }
            if newValue.scale != oldScale { windowScaleDidChange(to: newValue.scale) }
        }
    }

    // MARK: First responder

    /// The responder key presses and text go to first (`UIResponder.becomeFirstResponder()`);
    /// nil: none (presses go to the window). It resigns when it leaves the window
    /// (removed from it, or moved to another), not when it is hidden — as in UIKit.
    public internal(set) weak var firstResponder: Responder?

    /// A subtree is leaving the window: its first responder resigns (even if it refuses)
    /// and its views under the pointer are exited, deepest first.
    func subtreeWillLeave(_ root: View) {
        if let responder = firstResponder as? View, responder.isDescendant(of: root) {
            _ = responder.resignFirstResponder()
            if firstResponder === responder { firstResponder = nil }
        }
        let leaving = hoveredViews.filter { $0.isDescendant(of: root) }
        guard !leaving.isEmpty else { return }
        hoveredViews.removeAll { v in leaving.contains { $0 === v } }
        let event = PointerEvent(timestamp: lastPointerTimestamp, modifierFlags: modifierFlags,
                                 locationInWindow: pointerLocation ?? .zero)
        for v in leaving.reversed() { v.pointerExited(event) }
    }

    // MARK: Input

    /// The modifier keys held, as of the last `KeyPressInput` (every event carries them).
    public private(set) var modifierFlags: KeyModifierFlags = []

    /// Delivers input from the host: one `TouchInput` per finger that changed. A touch
    /// that begins is hit-tested and stays with that view until it ends or is cancelled,
    /// wherever it moves; views that do not handle it pass it up the responder chain.
    public func send(_ inputs: [TouchInput]) {
        var changed: [TouchPhase: [Touch]] = [:]
        var order: [TouchPhase] = []
        for input in inputs {
            let touch: Touch
            if input.phase == .began {
                if let stale = activeTouches[input.identifier], let view = stale.view {
                    // Began again without ending: the old touch is cancelled first.
                    stale.phase = .cancelled
                    view.touchesCancelled([stale], with: Event(timestamp: input.timestamp, allTouches: Set(activeTouches.values),
                                                               modifierFlags: modifierFlags))
                }
                touch = Touch(identifier: input.identifier, phase: .began, location: input.location, timestamp: input.timestamp, window: self)
                touch.view = hitTest(input.location, with: nil)
                activeTouches[input.identifier] = touch
            } else {
                guard let t = activeTouches[input.identifier] else { continue }   // never began: ignored
                touch = t
                touch.previousLocationInWindow = touch.locationInWindow
                touch.locationInWindow = input.location
                touch.phase = input.phase
                touch.timestamp = input.timestamp
            }
            if changed[input.phase] == nil { order.append(input.phase) }
            changed[input.phase, default: []].append(touch)
        }
        let event = Event(timestamp: inputs.map(\.timestamp).max() ?? 0, allTouches: Set(activeTouches.values), modifierFlags: modifierFlags)
        for phase in order {
            // Per view, in the order the touches arrived.
            var byView: [(View, Set<Touch>)] = []
            for touch in changed[phase] ?? [] {
                guard let view = touch.view else { continue }
                if let i = byView.firstIndex(where: { $0.0 === view }) { byView[i].1.insert(touch) } else { byView.append((view, [touch])) }
            }
            for (view, touches) in byView {
                switch phase {
                case .began: view.touchesBegan(touches, with: event)
                case .moved: view.touchesMoved(touches, with: event)
                case .stationary: break   // not delivered (as UIKit): only part of allTouches
                case .ended: view.touchesEnded(touches, with: event)
                case .cancelled: view.touchesCancelled(touches, with: event)
                }
            }
        }
        for input in inputs where input.phase == .ended || input.phase == .cancelled {
            activeTouches[input.identifier] = nil
        }
    }

    /// Touches currently down.
    public var touchesInProgress: Int { activeTouches.count }

    /// Delivers a key going down, repeating or up. A press begins at the first responder
    /// (the window when there is none) and goes up the responder chain until handled; its
    /// later phases go to the same responder. A `began` for a key already down is an
    /// auto-repeat: `pressesChanged`, with `repeatCount` increased. An `ended` or
    /// `cancelled` for a key that is not down is ignored.
    public func send(_ input: KeyPressInput) {
        var flags = input.modifierFlags
        flags.remove(.numericPad)
        modifierFlags = flags
        let key = Key(keyCode: input.keyCode, modifierFlags: flags, characters: input.characters,
                      charactersIgnoringModifiers: input.charactersIgnoringModifiers)
        switch input.phase {
        case .began, .changed:
            if let press = activePresses[input.keyCode] {
                press.phase = .changed
                press.timestamp = input.timestamp
                press.key = key
                press.repeatCount += 1
                press.responder?.pressesChanged([press], with: pressesEvent(input.timestamp))
            } else if input.phase == .began {
                let responder = firstResponder ?? self
                let press = Press(key: key, timestamp: input.timestamp, responder: responder, window: self)
                activePresses[input.keyCode] = press
                responder.pressesBegan([press], with: pressesEvent(input.timestamp))
            }
        case .ended, .cancelled:
            guard let press = activePresses[input.keyCode] else { return }
            press.phase = input.phase
            press.timestamp = input.timestamp
            press.key = key
            let event = pressesEvent(input.timestamp)
            activePresses[input.keyCode] = nil
            if input.phase == .ended { press.responder?.pressesEnded([press], with: event) } else { press.responder?.pressesCancelled([press], with: event) }
        }
    }

    /// Cancels every press in progress (`pressesCancelled` to the responders they began
    /// at) and forgets the modifiers: for when the window loses the keyboard focus, after
    /// which the host would never report the keys going up.
    public func cancelPresses(timestamp: Double = 0) {
        let presses = activePresses.values.sorted { $0.timestamp < $1.timestamp }
        guard !presses.isEmpty else { modifierFlags = []; return }
        for press in presses { press.phase = .cancelled; press.timestamp = timestamp }
        let event = pressesEvent(timestamp)
        activePresses = [:]
        modifierFlags = []
        var byResponder: [(Responder, Set<Press>)] = []
        for press in presses {
            guard let r = press.responder else { continue }
            if let i = byResponder.firstIndex(where: { $0.0 === r }) { byResponder[i].1.insert(press) } else { byResponder.append((r, [press])) }
        }
        for (responder, set) in byResponder { responder.pressesCancelled(set, with: event) }
    }

    /// Keys currently down.
    public var pressesInProgress: Int { activePresses.count }

    private func pressesEvent(_ timestamp: Double) -> PressesEvent {
        PressesEvent(timestamp: timestamp, allPresses: Set(activePresses.values), modifierFlags: modifierFlags)
    }

    /// The end of the chain for key presses: editing keys nobody handled act on a first
    /// responder that takes text (`KeyInput`) — Backspace deletes backward, Return and
    /// keypad Enter insert "\n", Tab inserts "\t" (unless Control, Alt or Command is held).
    /// A subclass overriding this calls `super` for presses it does not handle.
    open override func pressesBegan(_ presses: Set<Press>, with event: PressesEvent) {
        performTextEditing(presses)
    }

    /// Auto-repeats of editing keys repeat their action (see `pressesBegan`).
    open override func pressesChanged(_ presses: Set<Press>, with event: PressesEvent) {
        performTextEditing(presses)
    }

    private func performTextEditing(_ presses: Set<Press>) {
        guard let input = firstResponder as? KeyInput else { return }
        for press in presses.sorted(by: { $0.timestamp < $1.timestamp }) {
            guard let key = press.key, key.modifierFlags.isDisjoint(with: [.control, .alternate, .command]) else { continue }
            textInputTimestamp = press.timestamp
            switch key.keyCode {
            case .keyboardDeleteOrBackspace: input.deleteBackward()
            case .keyboardReturnOrEnter, .keypadEnter: input.insertText("\n")
            case .keyboardTab: input.insertText("\t")
            default: break
            }
        }
    }

    /// Delivers typed text: inserted into the first responder if it takes text
    /// (`KeyInput`), dropped otherwise (as UIKit types only into a key-input responder).
    public func send(_ input: TextInput) {
        guard !input.text.isEmpty, let responder = firstResponder as? KeyInput else { return }
        textInputTimestamp = input.timestamp
        responder.insertText(input.text)
    }

    /// The time of the input being turned into text editing now (`KeyInput` calls carry no
    /// event): the typed text's, or the editing key's press.
    package private(set) var textInputTimestamp = 0.0

    /// Where the pointer is, in window points (nil: outside the window, or never seen).
    public private(set) var pointerLocation: Point?
    private var lastPointerTimestamp = 0.0

    /// Delivers a pointer move or exit. The views containing the pointer are the
    /// hit-tested view and its superviews up to the window (`hitTest` rules: hidden,
    /// transparent and non-interactive views are not under the pointer); when that set
    /// changes, the views that left it get `pointerExited` (deepest first), then those that
    /// joined it get `pointerEntered` (outermost first) — the DOM's mouseleave/mouseenter
    /// semantics. Then the move: to the touch the pointer holds down (`touchesMoved`, see
    /// `PointerInput`), otherwise `pointerMoved` to the hit view, up the chain. `exited`
    /// exits every view, the window last.
    public func send(_ input: PointerInput) {
        lastPointerTimestamp = input.timestamp
        let event = PointerEvent(timestamp: input.timestamp, modifierFlags: modifierFlags, locationInWindow: input.location)
        switch input.phase {
        case .moved:
            pointerLocation = input.location
            let hit = hitTest(input.location, with: nil)
            updateHover(hit, event)
            if activeTouches[input.identifier] != nil {
                send([TouchInput(identifier: input.identifier, phase: .moved, location: input.location, timestamp: input.timestamp)])
            } else {
                hit?.pointerMoved(event)
            }
        case .exited:
            let last = PointerEvent(timestamp: input.timestamp, modifierFlags: modifierFlags,
                                    locationInWindow: pointerLocation ?? input.location)
            pointerLocation = nil
            updateHover(nil, last)
        }
    }

    /// Sets the views containing the pointer to `hit` and its superviews, exiting and
    /// entering the difference.
    private func updateHover(_ hit: View?, _ event: PointerEvent) {
        var chain: [View] = []
        var v = hit
        while let current = v { chain.insert(current, at: 0); v = current.superview }
        let old = hoveredViews
        let exited = old.filter { o in !chain.contains { $0 === o } }
        let entered = chain.filter { n in !old.contains { $0 === n } }
        hoveredViews = chain
        for view in exited.reversed() { view.pointerExited(event) }
        // A handler may have changed the hierarchy: enter only views still under the pointer.
        for view in entered where hoveredViews.contains(where: { $0 === view }) { view.pointerEntered(event) }
    }

    /// Delivers a scroll-wheel event to the view under the pointer (`scrollWheel(with:)`),
    /// which passes it up the chain unless it handles it (`ScrollView` scrolls). Without a
    /// location and with the pointer outside the window, it is dropped. Content that moved
    /// under the pointer updates the views it is over (`pointerEntered`/`pointerExited`).
    public func send(_ input: ScrollInput) {
        guard let location = input.location ?? pointerLocation else { return }
        let event = ScrollEvent(deltaX: input.deltaX, deltaY: input.deltaY, timestamp: input.timestamp,
                                modifierFlags: modifierFlags, locationInWindow: location)
        hitTest(location, with: nil)?.scrollWheel(with: event)
        if let p = pointerLocation {
            updateHover(hitTest(p, with: nil), PointerEvent(timestamp: input.timestamp, modifierFlags: modifierFlags, locationInWindow: p))
        }
    }
}

/// A view that scrolls a large content by moving its bounds origin (`contentOffset`).
@MainActor
open class ScrollView: View {
    /// The scrollable size; changing it re-clamps the offset and lays out again.
    public var contentSize = Size.zero {
        didSet {
            guard contentSize != oldValue else { return }
            clampOffset()
            setNeedsLayout()
        }
    }
    /// The visible part's origin in content coordinates (the bounds origin).
    public var contentOffset: Point {
        get { bounds.origin }
        set {
            let clamped = clamp(newValue)
            guard clamped != bounds.origin else { return }
            bounds = Rect(origin: clamped, size: bounds.size)
            setNeedsLayout()
        }
    }

    private func clamp(_ p: Point) -> Point {
        let maxX = max(0, contentSize.width - bounds.width), maxY = max(0, contentSize.height - bounds.height)
        return Point(x: min(max(0, p.x), maxX), y: min(max(0, p.y), maxY))
    }

    private func clampOffset() { contentOffset = clamp(contentOffset) }

    public override init(frame: Rect = .zero) {
        super.init(frame: frame)
        clipsToBounds = true
    }

    private var dragStart: (touch: Point, offset: Point)?

    open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        guard let t = touches.first else { return }
        dragStart = (t.location(in: superview), contentOffset)
    }

    open override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        guard let t = touches.first, let start = dragStart else { return }
        let p = t.location(in: superview)
        contentOffset = Point(x: start.offset.x - (p.x - start.touch.x), y: start.offset.y - (p.y - start.touch.y))
    }

    open override func touchesEnded(_ touches: Set<Touch>, with event: Event) { dragStart = nil }
    open override func touchesCancelled(_ touches: Set<Touch>, with event: Event) { dragStart = nil }

    /// Scrolls by the event's deltas: `contentOffset` minus `(deltaX, deltaY)`, clamped
    /// (a wheel turned away from the user scrolls toward the top). An axis along which the
    /// content fits is not scrolled; when neither axis of the event can scroll, the event
    /// goes up the chain (to an enclosing scroll view). A scroll view stopped at an edge
    /// keeps the event.
    open override func scrollWheel(with event: ScrollEvent) {
        let dx = contentSize.width > bounds.width ? event.deltaX : 0
        let dy = contentSize.height > bounds.height ? event.deltaY : 0
        guard dx != 0 || dy != 0 else { return super.scrollWheel(with: event) }
        contentOffset = Point(x: contentOffset.x - dx, y: contentOffset.y - dy)
    }
}

/// A scroll view whose large content is drawn by recycled tile subviews (seed 004): in
/// `layoutSubviews` the tiles that scrolled out are repositioned over newly exposed
/// areas and redrawn; tiles still visible are left alone. `drawTile` draws one tile's
/// content (its row, column and rectangle in content coordinates).
@MainActor
open class TiledScrollView: ScrollView {
    /// The tile size asked for. Tiles are laid out at `effectiveTileSize`.
    public let tileSize: Size
    public var drawTile: (_ row: Int, _ column: Int, _ rect: Rect, _ context: GraphicsContext) -> Void

    /// The smallest tile side, in points: a smaller `tileSize` side is raised to it (as
    /// CATiledLayer's tiles, tiles are meant to be hundreds of points; tiny ones only
    /// multiply views and draws).
    public static let minimumTileSide = 4.0
    /// The most tiles the visible area may need: tiles that would be more are doubled in
    /// size (both sides) until they fit.
    public static let maximumVisibleTiles = 4096
    /// The largest row or column index: content beyond `maximumTileIndex` tiles (an
    /// infinite or astronomically large `contentSize`) is not tiled — scrolled there, the
    /// view shows no tiles.
    public static let maximumTileIndex = Int(Int32.max)

    /// The tile size used: `tileSize` with each side raised to `minimumTileSide` (a side
    /// that is not a positive finite number becomes 256 pt), doubled while the visible
    /// area would need more than `maximumVisibleTiles` tiles. `drawTile` receives rows,
    /// columns and rectangles of this size.
    public private(set) var effectiveTileSize: Size
    /// `tileSize` with its sides raised to the minimum.
    private let baseTileSize: Size

    public private(set) var tiles: [Tile] = []
    /// Tiles drawn so far (each draw of each tile).
    public var tileDraws: Int { tiles.reduce(0) { $0 + $1.draws } }

    /// One tile: a view drawing the content of (row, column).
    @MainActor
    public final class Tile: View {
        public internal(set) var row = -1
        public internal(set) var column = -1
        public internal(set) var draws = 0
        weak var owner: TiledScrollView?
        public override func draw(_ rect: Rect) {
            guard let owner, let ctx = currentGraphicsContext() else { return }
            draws += 1
            let size = owner.effectiveTileSize
            let origin = Point(x: Double(column) * size.width, y: Double(row) * size.height)
            ctx.save()
            ctx.translateBy(x: -origin.x, y: -origin.y)
            owner.drawTile(row, column, Rect(origin: origin, size: size), ctx)
            ctx.restore()
        }
    }

    public init(frame: Rect, contentSize: Size, tileSize: Size,
                drawTile: @escaping (Int, Int, Rect, GraphicsContext) -> Void) {
        self.tileSize = tileSize
        self.drawTile = drawTile
        func side(_ v: Double) -> Double { v.isFinite && v > 0 ? max(v, TiledScrollView.minimumTileSide) : 256 }
        baseTileSize = Size(width: side(tileSize.width), height: side(tileSize.height))
        effectiveTileSize = baseTileSize
        super.init(frame: frame)
        self.contentSize = contentSize
    }

    /// Doubles the tile size while the visible area would need too many tiles (each
    /// doubling divides the count by about four).
    private func fitTileSize(to visible: Rect) {
        var size = baseTileSize
        func count(_ s: Size) -> Double {
            ((visible.width / s.width).rounded(.up) + 1) * ((visible.height / s.height).rounded(.up) + 1)
        }
        while count(size) > Double(TiledScrollView.maximumVisibleTiles) {
            size = Size(width: size.width * 2, height: size.height * 2)
        }
        if size != effectiveTileSize {
            effectiveTileSize = size
            for tile in tiles { recycle(tile) }   // every cell moved
        }
    }

    open override func layoutSubviews() {
        let visible = bounds
        let content = Rect(origin: .zero, size: contentSize)
        guard !visible.isEmpty, contentSize.width > 0, contentSize.height > 0,
              [visible.minX, visible.minY, visible.maxX, visible.maxY].allSatisfy(\.isFinite),
              !visible.intersection(content).isEmpty else {
            for tile in tiles { recycle(tile) }   // nothing of the content shows
            return
        }
        fitTileSize(to: visible)
        let tile = effectiveTileSize
        // Rows and columns as numbers first: indices beyond `maximumTileIndex` are not tiled.
        let limit = Double(TiledScrollView.maximumTileIndex)
        let firstRowD = max(0, (visible.minY / tile.height).rounded(.down))
        let lastRowD = min(((visible.maxY - 1e-9) / tile.height).rounded(.down), (contentSize.height / tile.height).rounded(.up) - 1)
        let firstColumnD = max(0, (visible.minX / tile.width).rounded(.down))
        let lastColumnD = min(((visible.maxX - 1e-9) / tile.width).rounded(.down), (contentSize.width / tile.width).rounded(.up) - 1)
        guard firstRowD <= lastRowD, firstColumnD <= lastColumnD, lastRowD <= limit, lastColumnD <= limit else {
            for tile in tiles { recycle(tile) }
            return
        }
        let rows = Int(firstRowD)...Int(lastRowD)
        let columns = Int(firstColumnD)...Int(lastColumnD)
        var needed = Set<[Int]>()
        for r in rows { for c in columns { needed.insert([r, c]) } }
        // Keep tiles already showing a needed cell; recycle the rest.
        var free: [Tile] = []
        for tile in tiles {
            if needed.contains([tile.row, tile.column]) { needed.remove([tile.row, tile.column]) } else { free.append(tile) }
        }
        for cell in needed.sorted(by: { $0[0] != $1[0] ? $0[0] < $1[0] : $0[1] < $1[1] }) {
            let t: Tile
            if let f = free.popLast() {
                t = f
            } else {
                t = Tile(frame: .zero)
                t.owner = self
                t.isUserInteractionEnabled = false
                tiles.append(t)
                addSubview(t)
            }
            t.row = cell[0]
            t.column = cell[1]
            t.isHidden = false
            t.frame = Rect(x: Double(cell[1]) * tile.width, y: Double(cell[0]) * tile.height,
                           width: tile.width, height: tile.height)
            t.setNeedsDisplay()
        }
        for t in free { recycle(t) }
    }

    /// Hides a tile that shows nothing and frees its bitmap and texture until it is reused.
    private func recycle(_ tile: Tile) {
        guard tile.row >= 0 || !tile.isHidden else { return }
        tile.isHidden = true
        tile.row = -1
        tile.column = -1
        tile.layer.contents = nil
    }
}
