import LaminaGeometry
import LaminaValues

/// Damage as a region: a few disjoint rectangles of target pixels (wlroots keeps a pixman
/// region per frame in its damage ring). A rectangle added merges with those it overlaps
/// (and with a neighbour when their union wastes little); past `maximumRects`, the two whose
/// union adds the least area merge. Disjoint, so drawing each rectangle's items scissored
/// to it draws every damaged pixel once.
public struct DamageRegion: Equatable, Sendable, CustomStringConvertible {
    /// The rectangles, disjoint.
    public private(set) var rects: [TargetPixels] = []
    /// More rectangles than this are merged: each is one scissored run of draws.
    public static let maximumRects = 8

    public init() {}
    public init(_ rects: [TargetPixels]) { for r in rects { add(r) } }

    public var isEmpty: Bool { rects.isEmpty }
    /// Pixels covered.
    public var area: Int { rects.reduce(0) { $0 + $1.area } }
    /// The box of every rectangle (nil: empty).
    public var bounds: TargetPixels? { rects.dropFirst().reduce(rects.first) { $0?.union($1) } }
    public var description: String { rects.isEmpty ? "∅" : rects.map(\.description).joined(separator: " ∪ ") }

    /// Adds `r` (merged with the rectangles it overlaps).
    public mutating func add(_ r: TargetPixels) {
        guard !r.isEmpty, !rects.contains(where: { $0.contains(r) }) else { return }
        var merged = r
        var changed = true
        while changed {
            changed = false
            for (i, e) in rects.enumerated() where e.intersects(merged) || Self.cheapToMerge(e, merged) {
                merged = merged.union(e)
                rects.remove(at: i)
                changed = true
                break
            }
        }
        rects.append(merged)
        while rects.count > Self.maximumRects { mergeCheapestPair() }
    }

    /// Adds every rectangle of `other`.
    public mutating func formUnion(_ other: DamageRegion) { for r in other.rects { add(r) } }

    public func union(_ other: DamageRegion) -> DamageRegion {
        var u = self
        u.formUnion(other)
        return u
    }

    /// Whether `r` meets the region.
    func intersects(_ r: TargetPixels) -> Bool { rects.contains { $0.intersects(r) } }

    /// Touching or nearly so, with a union hardly larger than the two: one rectangle.
    private static func cheapToMerge(_ a: TargetPixels, _ b: TargetPixels) -> Bool {
        let u = a.union(b)
        return Double(u.area) <= Double(a.area + b.area) * 1.15 + 64
    }

    private mutating func mergeCheapestPair() {
        var best = (0, 1), cost = Int.max
        for i in 0..<rects.count {
            for j in (i + 1)..<rects.count {
                let c = rects[i].union(rects[j]).area - rects[i].area - rects[j].area
                if c < cost { cost = c; best = (i, j) }
            }
        }
        let u = rects[best.0].union(rects[best.1])
        rects.remove(at: best.1)
        rects.remove(at: best.0)
        add(u)
    }
}

/// The damage of the last frames drawn, newest first (wlroots' damage ring): a buffer
/// `age` frames old misses the damage of the `age − 1` frames drawn since it.
struct DamageRing {
    private var frames: [DamageRegion] = []
    /// Frames remembered (a buffer older than this is drawn whole).
    static let depth = 4

    var count: Int { frames.count }

    mutating func push(_ region: DamageRegion) {
        frames.insert(region, at: 0)
        if frames.count > Self.depth { frames.removeLast() }
    }

    /// Forgets the newest frame (it was not presented).
    mutating func dropNewest() { if !frames.isEmpty { frames.removeFirst() } }

    mutating func removeAll() { frames = [] }

    /// The union of the newest `n` frames' damage (nil: the ring does not reach that far).
    func accumulated(_ n: Int) -> DamageRegion? {
        guard n <= frames.count else { return nil }
        var r = DamageRegion()
        for f in frames.prefix(n) { r.formUnion(f) }
        return r
    }
}
