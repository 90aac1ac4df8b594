import LaminaGeometry
import LaminaValues

/// What items draw into: the render target's pass, or an offscreen image kept until
/// something in it changes (a group's, a mask's, a replicator's sublayers').
final class Surface {
    // `@exclusivity(unchecked)` on the fields a moved item touches (the grid, twice an item
    // a frame in S1): no access to them is held across a call that reaches the surface again.
    let id: SurfaceID
    /// Its items in paint order (by key).
    var items = OrderedItems()
    /// The union of the items' boxes (an image covers this); worked out by `recomputeBounds`.
    var bounds: TargetBox?
    /// Something in it changed since its image was last rendered.
    var isDirty = true
    /// Everything in it moved by this translation (target points) since its image was
    /// rendered, and nothing else changed: the image is reused where the move is a whole
    /// number of pixels.
    var shift: (dx: Double, dy: Double)?
    /// Where the items are, for finding those in a small damaged region (the target's only).
    @exclusivity(unchecked) var grid: Grid?
    /// Backdrop-blur items (the target's only): damage within their reach grows by it.
    @exclusivity(unchecked) var backdrops: [ObjectIdentifier: Item] = [:]
    /// Items drawn inside a stencil clip (`Item.drawsInStencil`): while there are any, the
    /// surface's pass needs a stencil buffer. Counted as items come and go, and again for
    /// an item whose clip chain changed shape (`restencil`).
    private(set) var stencilItems = 0

    init(id: SurfaceID) { self.id = id }

    func recomputeBounds() {
        var b: TargetBox?
        items.forEach { item in if let ib = item.bounds { b = b.map { $0.union(ib) } ?? ib } }
        bounds = b
    }

    /// Adds an item (at its key's place), with the grid and the backdrop list.
    func insert(_ item: Item) {
        items.insert(item)
        noteAdded(item)
    }

    /// Adds items whose keys all lie in one gap between the items held, in key order.
    func insert(contentsOf batch: [Item]) {
        items.insert(contentsOf: batch)
        for item in batch { noteAdded(item) }
    }

    func remove(_ item: Item) {
        let held = items.remove(item)
        noteRemoved(item, held: held)
    }

    /// Removes the items with keys in `range`; returns them.
    @discardableResult
    func removeItems(in range: Range<UInt64>) -> [Item] {
        let removed = items.removeItems(in: range)
        for item in removed { noteRemoved(item, held: true) }
        return removed
    }

    /// Its item's box changed: the grid follows.
    func moved(_ item: Item) {
        guard grid != nil else { return }
        grid!.remove(item)
        grid!.insert(item)
    }

    /// An item held whose clip chain was brought up to date: counted again.
    func restencil(_ item: Item) {
        guard let counted = item.countedInStencil else { return }
        let now = item.drawsInStencil
        guard now != counted else { return }
        stencilItems += now ? 1 : -1
        item.countedInStencil = now
    }

    private func noteAdded(_ item: Item) {
        let counted = item.drawsInStencil
        item.countedInStencil = counted
        if counted { stencilItems += 1 }
        if grid != nil { grid!.remove(item); grid!.insert(item) }
        if id == .target && item.kind.readsBackdrop { backdrops[ObjectIdentifier(item)] = item }
    }

    private func noteRemoved(_ item: Item, held: Bool) {
        if held {
            if item.countedInStencil == true { stencilItems -= 1 }
            item.countedInStencil = nil
        }
        if grid != nil { grid!.remove(item) }
        if !backdrops.isEmpty { backdrops[ObjectIdentifier(item)] = nil }
    }
}

/// Items sorted by paint-order key: O(log n) look-ups, one move of the array per insertion
/// or removal of a run of items (a subtree's items lie in one key range).
struct OrderedItems {
    private(set) var array: [Item] = []

    var count: Int { array.count }
    var isEmpty: Bool { array.isEmpty }
    func forEach(_ body: (Item) -> Void) { array.forEach(body) }

    /// The index of the first item with a key ≥ `key`.
    func lowerBound(_ key: UInt64) -> Int {
        var lo = 0, hi = array.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if array[mid].key < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    mutating func insert(_ item: Item) {
        let i = lowerBound(item.key)
        if i == array.count { array.append(item) } else { array.insert(item, at: i) }
    }

    mutating func insert(contentsOf batch: [Item]) {
        guard let first = batch.first else { return }
        let i = lowerBound(first.key)
        if i == array.count { array.append(contentsOf: batch) } else { array.insert(contentsOf: batch, at: i) }
    }

    /// Removes `item`; returns whether it was held.
    @discardableResult
    mutating func remove(_ item: Item) -> Bool {
        var i = lowerBound(item.key)
        while i < array.count, array[i].key == item.key {
            if array[i] === item { array.remove(at: i); return true }
            i += 1
        }
        return false
    }

    mutating func removeItems(in range: Range<UInt64>) -> [Item] {
        let a = lowerBound(range.lowerBound), b = lowerBound(range.upperBound)
        guard a < b else { return [] }
        // (Copied out first: a slice would keep the buffer shared, and the removal copy it whole.)
        let removed = Array(array[a..<b])
        array.removeSubrange(a..<b)
        return removed
    }

    mutating func removeAll() -> [Item] {
        defer { array = [] }
        return array
    }
}

/// A uniform grid over the target: which of the target's items touch each cell, so that the
/// items meeting a small damage are found without a scan.
struct Grid {
    /// A cell's side in target points: 64, or more on a target so large (in points: a small
    /// pixel scale) that 64-point cells would number more than 1024 a side.
    let cell: Double
    let columns: Int, rows: Int
    private var cells: [[Item]]
    /// Items too large for cells (covering very many), drawn whenever they meet the damage.
    private var large: [ObjectIdentifier: Item] = [:]

    init(size: Size) {
        let longest = max(size.width.isFinite ? size.width : 0, size.height.isFinite ? size.height : 0)
        let cell = max(64, longest / 1024)
        self.cell = cell
        func count(_ v: Double) -> Int {
            let c = (v / cell).rounded(.up)
            return c.isFinite ? max(1, Int(min(c, 1024))) : 1
        }
        columns = count(size.width)
        rows = count(size.height)
        cells = Array(repeating: [], count: columns * rows)
    }

    /// The cells a box covers (nil: none). Any box is safe: NaN covers nothing, and the
    /// cell numbers are clamped before they become integers.
    private func range(_ b: TargetBox) -> (Int32, Int32, Int32, Int32)? {
        guard b.maxX > 0, b.maxY > 0, b.minX <= b.maxX, b.minY <= b.maxY else { return nil }
        func index(_ v: Double, _ count: Int) -> Int32 {
            let c = (v / cell).rounded(.down)
            return c <= 0 ? 0 : c >= Double(count - 1) ? Int32(count - 1) : Int32(c)
        }
        let x0 = index(b.minX, columns), y0 = index(b.minY, rows), x1 = index(b.maxX, columns), y1 = index(b.maxY, rows)
        guard x0 <= x1, y0 <= y1, b.minX < Double(columns) * cell, b.minY < Double(rows) * cell else { return nil }
        return (x0, y0, x1, y1)
    }

    mutating func insert(_ item: Item) {
        guard let b = item.bounds, let (x0, y0, x1, y1) = range(b) else { item.cells = nil; return }
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 64 {
            large[ObjectIdentifier(item)] = item
            item.cells = (1, 1, 0, 0)
            return
        }
        for y in y0...y1 { for x in x0...x1 { cells[Int(y) * columns + Int(x)].append(item) } }
        item.cells = (x0, y0, x1, y1)
    }

    mutating func remove(_ item: Item) {
        guard let (x0, y0, x1, y1) = item.cells else { return }
        item.cells = nil
        if x0 > x1 { large[ObjectIdentifier(item)] = nil; return }
        for y in y0...y1 {
            for x in x0...x1 {
                let c = Int(y) * columns + Int(x)
                if let i = cells[c].firstIndex(where: { $0 === item }) { cells[c].swapAt(i, cells[c].count - 1); cells[c].removeLast() }
            }
        }
    }

    /// Items whose cells meet `b` (duplicates possible) and that `keep` accepts.
    func query(_ b: TargetBox, into out: inout [Item], where keep: (Item) -> Bool = { _ in true }) {
        for item in large.values where keep(item) { out.append(item) }
        guard let (x0, y0, x1, y1) = range(b) else { return }
        for y in y0...y1 {
            for x in x0...x1 {
                for item in cells[Int(y) * columns + Int(x)] where keep(item) { out.append(item) }
            }
        }
    }
}
