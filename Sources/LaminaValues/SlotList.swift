// SPI-public, not `package`: Swift 6.3 does not inline or specialize a `package`
// `@inlinable` body in another module (checked with -emit-sil), so every use of the list
// from LaminaModel, LaminaRender and LaminaUI called its unspecialized generic code and
// looked up generic metadata at each call (about 3 % of S1's main-thread instructions,
// callgrind). SPI keeps it out of the public API.

/// An element of a `SlotList`: it knows its slot, so that it is removed in O(1).
@_spi(LaminaInternal) public protocol SlotListElement: AnyObject {
    /// The element's slot in the list that holds it (maintained by the list).
    var slotIndex: Int { get set }
}

/// An ordered list of objects (a layer's sublayers, a view's subviews, a render node's
/// children) where removing any element is O(1): its slot is emptied and the list is
/// compacted only when it is next read in order or inserted into, or when the empty slots
/// outnumber the elements — so removing N elements one by one costs O(N) in all; appending
/// is O(1), inserting in the middle O(count).
@_spi(LaminaInternal) public struct SlotList<Element: SlotListElement> {
    /// The slots: an element, or nil where one was removed.
    @usableFromInline var slots: [Element?] = []
    /// Empty slots in `slots`.
    @usableFromInline var empty = 0

    @inlinable
    public init() {}

    /// The number of elements (without compacting).
    @inlinable
    public var count: Int { slots.count - empty }
    @inlinable
    public var isEmpty: Bool { count == 0 }

    /// The elements in order (compacts first).
    @inlinable
    public mutating func elements() -> [Element] {
        compact()
        // (No empty slot is left: the force unwrap cannot fail.)
        return slots.map { $0! }
    }

    /// The elements in order, without compacting (for readers that cannot mutate).
    @inlinable
    public func forEach(_ body: (Element) throws -> Void) rethrows {
        for case let e? in slots { try body(e) }
    }

    /// The elements in order, transformed (without compacting).
    @inlinable
    public func map<T>(_ transform: (Element) throws -> T) rethrows -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        for case let e? in slots { out.append(try transform(e)) }
        return out
    }

    /// The last element (never an empty slot: trailing empty slots are dropped).
    @inlinable
    public var last: Element? { slots.last ?? nil }

    /// The element at `index` of the compacted list.
    @inlinable
    public mutating func element(at index: Int) -> Element {
        compact()
        return slots[index]!
    }

    /// The index of `element` in the compacted list (compacts first), when it is one.
    @inlinable
    public mutating func index(of element: Element) -> Int? {
        compact()
        let i = element.slotIndex
        return i >= 0 && i < slots.count && slots[i] === element ? i : nil
    }

    /// Whether `element` is in the list (O(1)).
    @inlinable
    public func contains(_ element: Element) -> Bool {
        let i = element.slotIndex
        return i >= 0 && i < slots.count && slots[i] === element
    }

    /// The element before `element` in order, skipping empty slots (nil: it is the first).
    @inlinable
    public func element(before element: Element) -> Element? {
        var i = element.slotIndex - 1
        while i >= 0 { if let e = slots[i] { return e }; i -= 1 }
        return nil
    }

    /// The element after `element` in order, skipping empty slots (nil: it is the last).
    @inlinable
    public func element(after element: Element) -> Element? {
        var i = element.slotIndex + 1
        while i < slots.count { if let e = slots[i] { return e }; i += 1 }
        return nil
    }

    @inlinable
    public mutating func append(_ element: Element) {
        element.slotIndex = slots.count
        slots.append(element)
    }

    /// Inserts `element` at `index` of the compacted list (clamped). O(count).
    @inlinable
    public mutating func insert(_ element: Element, at index: Int) {
        compact()
        let i = max(0, min(index, slots.count))
        guard i < slots.count else { append(element); return }
        slots.insert(element, at: i)
        for j in i..<slots.count { slots[j]!.slotIndex = j }
    }

    /// Removes `element` (O(1) amortized); returns whether it was in the list.
    @discardableResult
    @inlinable
    public mutating func remove(_ element: Element) -> Bool {
        guard contains(element) else { return false }
        let i = element.slotIndex
        element.slotIndex = -1
        if i == slots.count - 1 {
            slots.removeLast()
            // Empty slots left at the end go too.
            while let l = slots.last, l == nil { slots.removeLast(); empty -= 1 }
        } else {
            slots[i] = nil
            empty += 1
            if empty > slots.count / 2 { compact() }
        }
        return true
    }

    /// Takes every element out, in order, leaving the list empty (for freeing deep trees
    /// without recursion: the caller walks what it took).
    @inlinable
    public mutating func removeAll() -> [Element] {
        let all = slots.compactMap { $0 }
        for e in all { e.slotIndex = -1 }
        slots = []
        empty = 0
        return all
    }

    @inlinable mutating func compact() {
        guard empty > 0 else { return }
        var kept: [Element?] = []
        kept.reserveCapacity(slots.count - empty)
        for case let e? in slots {
            e.slotIndex = kept.count
            kept.append(e)
        }
        slots = kept
        empty = 0
    }
}
