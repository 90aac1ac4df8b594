import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics

/// The root view, attached to a render target (offscreen, a GBM buffer, or a caller's
/// framebuffer) with its scale. It commits and presents frames through the transaction
/// of each run-loop turn, and delivers input: the host hands touches to `send(_:)`.
@MainActor
open class Window: View {
    public let host: LayerTreeHost
    public let scale: Double
    private var activeTouches: [Int: Touch] = [:]

    /// A window covering `target` (its size in points is the target's), cleared to
    /// `background` before each frame — nil: composited over what the target holds (a
    /// host's frame; see `LayerTreeHost.compositesEveryFrame`).
    public init(target: RenderTarget, background: Color? = .white) {
        scale = target.scale
        host = LayerTreeHost(rootLayer: Layer(), target: target, background: background)
        super.init(frame: Rect(origin: .zero, size: target.size))
        host.rootLayer.addSublayer(layer)
        layer.contentsScale = scale
    }

    /// The window is the last responder.
    open override var next: Responder? { nil }

    /// The last frame composited.
    public var lastFrame: FrameStatistics { host.lastFrame }

    /// Commits now: layout, display and composite of everything pending.
    public func compositeNow() throws { try Transaction.flush() }

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
                    view.touchesCancelled([stale], with: Event(timestamp: input.timestamp, allTouches: Set(activeTouches.values)))
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
        let event = Event(timestamp: inputs.map(\.timestamp).max() ?? 0, allTouches: Set(activeTouches.values))
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
}

/// A scroll view whose large content is drawn by recycled tile subviews (seed 004): in
/// `layoutSubviews` the tiles that scrolled out are repositioned over newly exposed
/// areas and redrawn; tiles still visible are left alone. `drawTile` draws one tile's
/// content (its row, column and rectangle in content coordinates).
@MainActor
open class TiledScrollView: ScrollView {
    public let tileSize: Size
    public var drawTile: (_ row: Int, _ column: Int, _ rect: Rect, _ context: GraphicsContext) -> Void

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
            let origin = Point(x: Double(column) * owner.tileSize.width, y: Double(row) * owner.tileSize.height)
            ctx.save()
            ctx.translateBy(x: -origin.x, y: -origin.y)
            owner.drawTile(row, column, Rect(origin: origin, size: owner.tileSize), ctx)
            ctx.restore()
        }
    }

    public init(frame: Rect, contentSize: Size, tileSize: Size,
                drawTile: @escaping (Int, Int, Rect, GraphicsContext) -> Void) {
        self.tileSize = tileSize
        self.drawTile = drawTile
        super.init(frame: frame)
        self.contentSize = contentSize
    }

    open override func layoutSubviews() {
        let visible = bounds
        guard !visible.isEmpty, tileSize.width > 0, tileSize.height > 0, contentSize.width > 0, contentSize.height > 0 else {
            for tile in tiles { recycle(tile) }
            return
        }
        let rows = max(0, Int((visible.minY / tileSize.height).rounded(.down)))...Int(((visible.maxY - 1e-9) / tileSize.height).rounded(.down))
        let columns = max(0, Int((visible.minX / tileSize.width).rounded(.down)))...Int(((visible.maxX - 1e-9) / tileSize.width).rounded(.down))
        let maxRow = Int((contentSize.height / tileSize.height).rounded(.up)) - 1
        let maxColumn = Int((contentSize.width / tileSize.width).rounded(.up)) - 1
        var needed = Set<[Int]>()
        for r in rows where r <= maxRow { for c in columns where c <= maxColumn { needed.insert([r, c]) } }
        // Keep tiles already showing a needed cell; recycle the rest.
        var free: [Tile] = []
        for tile in tiles {
            if needed.contains([tile.row, tile.column]) { needed.remove([tile.row, tile.column]) } else { free.append(tile) }
        }
        for cell in needed.sorted(by: { $0[0] != $1[0] ? $0[0] < $1[0] : $0[1] < $1[1] }) {
            let tile: Tile
            if let t = free.popLast() {
                tile = t
            } else {
                tile = Tile(frame: .zero)
                tile.owner = self
                tile.isUserInteractionEnabled = false
                tiles.append(tile)
                addSubview(tile)
            }
            tile.row = cell[0]
            tile.column = cell[1]
            tile.isHidden = false
            tile.frame = Rect(x: Double(cell[1]) * tileSize.width, y: Double(cell[0]) * tileSize.height,
                              width: tileSize.width, height: tileSize.height)
            tile.setNeedsDisplay()
        }
        for tile in free { recycle(tile) }
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
