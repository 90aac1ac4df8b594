import LaminaGeometry
import LaminaValues
import LaminaGraphics

/// Draws a layer's content and lays out its sublayers (`CALayerDelegate`). Every method
/// has a default that does nothing.
@MainActor
public protocol LayerDelegate: AnyObject {
    /// Replaces the whole display step (e.g. by setting `layer.contents`); return true
    /// when handled, false to draw into the backing store as usual.
    func display(_ layer: Layer) -> Bool
    /// Draws the layer's content into `context` (clipped to the rectangle being redrawn).
    func draw(_ layer: Layer, in context: GraphicsContext)
    func layoutSublayers(of layer: Layer)
    /// The action for a change of the layer's `key` (`CALayerDelegate.action(for:forKey:)`):
    /// `.notHandled` (the default) lets the layer go on looking; `.none` means no action.
    func action(for layer: Layer, forKey key: String) -> ActionLookup
}

extension LayerDelegate {
    public func display(_ layer: Layer) -> Bool { false }
    public func draw(_ layer: Layer, in context: GraphicsContext) {}
    public func layoutSublayers(of layer: Layer) {}
}

/// Errors of the display pass.
public enum DisplayError: Error, Equatable, CustomStringConvertible {
    /// The layer's backing store would exceed what the GPU (or Cairo) can hold.
    case backingStoreTooLarge(layer: String, size: PixelSize, maximum: Int)
    /// The layer's bounds at its `contentsScale` make a size no bitmap can have (a side
    /// beyond `Int32.max` pixels, or not finite).
    case backingStoreSizeNotRepresentable(layer: String, bounds: Size, contentsScale: Double, maximum: Int)
    /// A shape layer's path (with its stroke) reaches so far that its extent is not a
    /// finite number of points: it cannot be rasterised.
    case shapeExtentNotRepresentable(layer: String, pathBox: Rect)

    public var description: String {
        switch self {
        case let .backingStoreTooLarge(layer, size, maximum):
            return "layer '\(layer)' needs a \(size) backing store, more than the maximum of \(maximum) pixels per side; make it smaller, lower contentsScale, or split its content into tiles (sublayers)"
        case let .backingStoreSizeNotRepresentable(layer, bounds, scale, maximum):
            return "layer '\(layer)' needs a backing store of \(bounds) points at contentsScale \(scale), far more than the maximum of \(maximum) pixels per side; make it smaller, lower contentsScale, or split its content into tiles (sublayers)"
        case let .shapeExtentNotRepresentable(layer, box):
            return "shape layer '\(layer)': its path's box \(box), with its stroke, is wider than any finite number of points; keep the path's coordinates (and lineWidth) within ±1e300"
        }
    }
}

/// A layer's drawn content: a CPU bitmap (Cairo) with the region drawn since the last
/// commit. It knows nothing of GPUs: at each commit the drawn region's bytes go to the
/// renderers in the `RenderUpdate` (Cairo's byte order as is: the renderer swizzles, no
/// CPU conversion), and each renderer keeps its own texture.
@MainActor
public final class BackingStore {
    public let bitmap: Bitmap
    /// Points to pixels.
    public let scale: Double
    /// Identity for the renderer (stable for the store's life, never reused).
    public let id: UInt64
    /// Pixels drawn since the last commit took them (nil: none).
    public private(set) var pendingRegion: PixelRect?

    private static var nextID: UInt64 = 0

    init(pixelSize: PixelSize, scale: Double, isOpaque: Bool) throws {
        bitmap = try Bitmap(pixelSize: pixelSize, isOpaque: isOpaque)
        self.scale = scale
        BackingStore.nextID += 1
        id = BackingStore.nextID
    }

    public var pixelSize: PixelSize { bitmap.pixelSize }

    /// The store as the renderer knows it.
    public var reference: StoreRef { StoreRef(id: id, pixelSize: pixelSize, isOpaque: bitmap.isOpaque) }

    func markDrawn(_ r: PixelRect) {
        guard let p = pendingRegion else { pendingRegion = r; return }
        let x0 = min(p.x, r.x), y0 = min(p.y, r.y)
        let x1 = max(p.x + p.width, r.x + r.width), y1 = max(p.y + p.height, r.y + r.height)
        pendingRegion = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The pixels of `region` (default: all), tightly packed, for a `ContentUpload`.
    package func upload(of region: PixelRect? = nil) -> ContentUpload {
        let r = region ?? PixelRect(size: pixelSize)
        let stride = bitmap.bytesPerRow
        var bytes = [UInt8](repeating: 0, count: r.area * 4)
        bitmap.withUnsafeBytes { all in
            bytes.withUnsafeMutableBytes { out in
                for row in 0..<r.height {
                    let from = (r.y + row) * stride + r.x * 4
                    out.baseAddress!.advanced(by: row * r.width * 4)
                        .copyMemory(from: all.baseAddress!.advanced(by: from), byteCount: r.width * 4)
                }
            }
        }
        return ContentUpload(store: reference, region: r, isFull: r == PixelRect(size: pixelSize), bytes: bytes)
    }

    /// The drawn region's pixels, once (the commit takes them).
    func takePendingUpload() -> ContentUpload? {
        guard let r = pendingRegion else { return nil }
        pendingRegion = nil
        return upload(of: r)
    }
}

extension Layer {
    /// Marks the whole content invalid: it is drawn once at the end of the turn, however
    /// often this is called. Nothing is drawn now.
    public func setNeedsDisplay() { invalidate(nil, reason: .setNeedsDisplay) }

    /// Marks `rect` (bounds coordinates) invalid. Rectangles accumulate until the draw,
    /// which receives their union and a context clipped to it; other pixels are kept.
    ///
    /// A rectangle with a coordinate that is not a number is ignored (nothing is
    /// invalidated); one with infinite coordinates, or one covering the whole bounds,
    /// invalidates everything, as `setNeedsDisplay()` (Core Animation treats an infinite
    /// rectangle so).
    public func setNeedsDisplay(_ rect: Rect) {
        let values = [rect.origin.x, rect.origin.y, rect.size.width, rect.size.height]
        guard !values.contains(where: \.isNaN) else { return }
        guard values.allSatisfy(\.isFinite) else {
            invalidate(nil, reason: .setNeedsDisplayInRect(rect))
            return
        }
        let r = rect.standardized.intersection(bounds)
        guard !r.isEmpty else { return }
        invalidate(r == bounds.standardized ? nil : r, reason: .setNeedsDisplayInRect(r))
    }

    func invalidate(_ rect: Rect?, reason: DisplayReason) {
        if !needsDisplay {
            dirtyRect = rect
            transactionContext.noteNeedsDisplay(self)
        } else if let current = dirtyRect {
            dirtyRect = rect.map { current.union($0) }   // nil (everything) wins
        }
        needsDisplay = true
        pendingDisplayReasons.append(reason)
    }

    /// Draws now if the content is invalid; when it returns, the new pixels are in the
    /// backing store (the next commit takes them to the renderers).
    public func displayIfNeeded() throws {
        guard needsDisplay else { return }
        needsDisplay = false
        defer { pendingDisplayReasons = []; dirtyRect = nil }   // also when display() is overridden
        // An animated key of the layer's own draws the value shown (Core Animation draws
        // the presentation layer).
        if properties.custom != nil, addedAnimations.contains(where: { $0.effect.customKeys.isEmpty == false }) {
            drawingValues = presentedProperties(at: MediaClock.now()).custom
            defer { drawingValues = nil }
            try display()
        } else {
            try display()
        }
    }

    /// Seed 002's `displayNow`: `setNeedsDisplay()` + `displayIfNeeded()`. The draw runs
    /// synchronously; when this returns, the backing store holds the new content.
    /// `Transaction.flush()` puts it on the target too (`View.displayNow()` does both).
    public func displayNow() throws {
        invalidate(nil, reason: .displayNow)
        try displayIfNeeded()
    }

    /// The default display: a backing store of the bounds at `contentsScale`, the dirty
    /// part cleared (unless opaque) and redrawn, only those pixels uploaded.
    func drawIntoBackingStore() throws {
        let reasons = pendingDisplayReasons
        pendingDisplayReasons = []
        let requested = dirtyRect
        dirtyRect = nil
        let scale = contentsScale > 0 && contentsScale.isFinite ? contentsScale : 1
        let maximum = min(transactionContext.maximumContentSide ?? Bitmap.maximumSide, Bitmap.maximumSide)
        guard let size = PixelSize.checked(covering: bounds.size, scale: scale) else {
            throw DisplayError.backingStoreSizeNotRepresentable(layer: name ?? String(describing: type(of: self)),
                                                                bounds: bounds.size, contentsScale: scale, maximum: maximum)
        }
        guard size.width > 0, size.height > 0 else {
            // Nothing to draw into: drawn content goes; contents set by code stay.
            if case .backingStore(let s)? = contents, s === backingStore { contents = nil }
            backingStore = nil
            return
        }
        guard size.width <= maximum, size.height <= maximum else {
            throw DisplayError.backingStoreTooLarge(layer: name ?? String(describing: type(of: self)), size: size, maximum: maximum)
        }
        var store = backingStore
        var drawRect = requested ?? bounds
        // A standalone layer whose `contents` change runs an action (Core Animation's
        // cross-fade of a redrawn layer) draws into a new store: the old one is what fades
        // out. `displayNow()` shows the new drawing at once (no action).
        let now = reasons.contains(.displayNow)
        if let shown = store, case .backingStore(let s)? = contents, s === shown, !now, contentsChangeRunsAction { store = nil }
        if store == nil || store!.pixelSize != size || store!.scale != scale || store!.bitmap.isOpaque != isOpaque {
            store = try BackingStore(pixelSize: size, scale: scale, isOpaque: isOpaque)
            drawRect = bounds   // a new store is drawn whole
        }
        let backing = store!
        // The pixels covering the rectangle (rounded out), and the same in points for the clip.
        let b = bounds.origin
        // Clamped to the store in Double first: a rectangle invalidated before the bounds
        // moved may lie far outside them now.
        func pixel(_ v: Double, _ rule: FloatingPointRoundingRule, _ maximum: Int) -> Int {
            let p = v.rounded(rule)
            return p.isNaN ? 0 : Int(min(max(p, 0), Double(maximum)))
        }
        let x0 = pixel((drawRect.minX - b.x) * scale + 1e-6, .down, size.width)
        let y0 = pixel((drawRect.minY - b.y) * scale + 1e-6, .down, size.height)
        let x1 = pixel((drawRect.maxX - b.x) * scale - 1e-6, .up, size.width)
        let y1 = pixel((drawRect.maxY - b.y) * scale - 1e-6, .up, size.height)
        guard x1 > x0, y1 > y0 else { return }
        let pixels = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let clip = Rect(x: b.x + Double(x0) / scale, y: b.y + Double(y0) / scale,
                        width: Double(x1 - x0) / scale, height: Double(y1 - y0) / scale)
        let context = GraphicsContext(bitmap: backing.bitmap, scale: scale, origin: b, clip: clip)
        if !isOpaque { context.clear(clip) }
        draw(in: context)
        context.invalidate()
        displayCount += 1
        if context.paintCount == 0 && drawRect == bounds {
            // Nothing was drawn over the whole layer: no bitmap; contents set by code stay.
            if case .backingStore(let s)? = contents, s === backingStore { contents = nil }
            backingStore = nil
            let record = DisplayRecord(layer: name ?? String(describing: type(of: self)), layerID: id,
                                       reasons: reasons, rect: drawRect, pixelRect: pixels, uploadedBytes: 0)
            lastDisplay = record
            transactionContext.noteDisplay(record)
            return
        }
        backing.markDrawn(pixels)
        backingStore = backing
        if now { withoutContentsAction { contents = .backingStore(backing) } } else { contents = .backingStore(backing) }
        changed(.pixels)   // new pixels: the next commit hands them to the renderers
        let record = DisplayRecord(layer: name ?? String(describing: type(of: self)), layerID: id,
                                   reasons: reasons, rect: drawRect, pixelRect: pixels, uploadedBytes: pixels.area * 4)
        lastDisplay = record
        transactionContext.noteDisplay(record)
    }

    // MARK: Layout

    /// Marks the layer for `layoutSublayers()` at the end of the turn.
    public func setNeedsLayout() {
        guard !needsLayout else { return }
        needsLayout = true
        transactionContext.noteNeedsLayout(self)
    }

    /// Lays out now: from the topmost ancestor that needs layout, down through this
    /// layer's subtree.
    public func layoutIfNeeded() {
        var top: Layer = self
        var l = superlayer
        while let current = l { if current.needsLayout { top = current }; l = current.superlayer }
        top.layoutSubtreeIfNeeded()
    }

    /// Lays out the layers of the subtree that need it, parents before their sublayers
    /// (an explicit stack: no recursion per level).
    func layoutSubtreeIfNeeded() {
        var stack: [Layer] = [self]
        while let l = stack.popLast() {
            if l.needsLayout {
                l.needsLayout = false
                transactionContext.noteLayout(l)
                l.layoutSublayers()
            }
            stack += l.sublayers.reversed()
        }
    }

}
