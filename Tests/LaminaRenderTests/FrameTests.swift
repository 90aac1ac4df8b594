import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
@_spi(LaminaInternal) import LaminaValues
import Testing

/// Frames as values, without a GPU: for small trees, the `Frame` a change produces — its
/// damage rectangles, render tasks and draws — and the calls it makes on a recording pass
/// encoder equal what the change implies. Root 100×100 (grey); A at (10, 10) and B at
/// (60, 60), 20×20 each. A layer's box reaches a point past its bounds (antialiased edges
/// reach half a pixel out: `TargetBox.of(layerRect:…)`).
@MainActor
@Suite("Frames: the tasks, draws and damage of a change, built without a GPU", .isolatedTransactions, .withoutImplicitAnimations)
struct FrameTests {
    let root = Layer(), a = Layer(), b = Layer()

    init() {
        root.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        root.backgroundColor = Color(red: 0.8, green: 0.8, blue: 0.8)
        a.frame = Rect(x: 10, y: 10, width: 20, height: 20)
        a.backgroundColor = Color(red: 1, green: 0, blue: 0)
        b.frame = Rect(x: 60, y: 60, width: 20, height: 20)
        b.backgroundColor = Color(red: 0, green: 0, blue: 1)
        root.addSublayer(a)
        root.addSublayer(b)
    }

    func rig() throws -> FrameRig {
        try Transaction.flush()
        let rig = FrameRig(root: root)
        rig.name(root, "root")
        rig.name(a, "A")
        rig.name(b, "B")
        return rig
    }

    @Test("the first frame is full: no tasks, every layer drawn once in paint order, one pass")
    func firstFrame() throws {
        let rig = try rig()
        let f = try rig.frame()
        #expect(f.frame.rebuildReason == .newTree && f.frame.isFull && f.frame.layersVisited == 3)
        #expect(rig.tasks(f) == [])
        #expect(rig.draws(f) == [["root solid", "A solid", "B solid"]])
        #expect(f.calls == ["begin target clear", "draw solid", "draw solid", "draw solid", "end"])
    }

    @Test("a move damages the old and new boxes (one rectangle: they overlap) and draws what meets them; one layer visited")
    func move() throws {
        let rig = try rig()
        _ = try rig.frame()
        a.position.x += 10
        let f = try rig.frame()
        #expect(f.frame.rebuildReason == nil && !f.frame.isFull && f.frame.layersVisited == 1)
        #expect(f.damage == ["9,9,32,22"])
        #expect(rig.tasks(f) == [])
        #expect(rig.draws(f) == [["root solid", "A solid"]])
        #expect(f.calls == ["begin target clear scissor (9, 9, 32×22 px)", "draw solid", "draw solid", "end"])
    }

    @Test("two moves far apart damage two rectangles, each drawn in its own scissored run")
    func twoMoves() throws {
        let rig = try rig()
        _ = try rig.frame()
        a.position.y += 2
        b.position.y -= 2
        let f = try rig.frame()
        #expect(f.damage == ["9,9,22,24", "59,57,22,24"])
        #expect(rig.draws(f) == [["root solid", "A solid"], ["root solid", "B solid"]])
        #expect(f.calls == ["begin target clear scissor (9, 9, 22×24 px)", "draw solid", "draw solid",
                            "scissor (59, 57, 22×24 px) clear", "draw solid", "draw solid", "end"])
    }

    @Test("an insert damages the new layer's box only and draws it between its neighbours; a removal damages the old box")
    func insertAndRemove() throws {
        let rig = try rig()
        _ = try rig.frame()
        let c = Layer()
        c.frame = Rect(x: 25, y: 25, width: 40, height: 40)   // over A's corner, under B's
        c.backgroundColor = Color(red: 0, green: 1, blue: 0)
        root.insertSublayer(c, above: a)
        rig.name(c, "C")
        var f = try rig.frame()
        #expect(f.frame.rebuildReason == nil && f.frame.layersVisited == 1)
        #expect(f.damage == ["24,24,42,42"])
        #expect(rig.draws(f) == [["root solid", "A solid", "C solid", "B solid"]])

        b.removeFromSuperlayer()
        f = try rig.frame()
        #expect(f.frame.rebuildReason == nil)
        #expect(f.damage == ["59,59,22,22"])
        #expect(rig.draws(f) == [["root solid", "C solid"]])
    }

    @Test("a layer moved into a subtree inserted in the same commit leaves its old place: both boxes damaged, drawn once")
    func moveIntoNewSubtree() throws {
        let rig = try rig()
        _ = try rig.frame()
        let c = Layer()
        c.frame = Rect(x: 5, y: 70, width: 30, height: 25)
        root.addSublayer(c)
        c.addSublayer(b)
        b.position = Point(x: 15, y: 12)   // (5, 70) + (5, 2): 20×20 at (10, 72) in the root
        rig.name(c, "C")
        let f = try rig.frame()
        #expect(f.frame.rebuildReason == nil)
        #expect(f.damage == ["59,59,22,22", "9,71,22,22"])
        #expect(rig.draws(f) == [["root solid"], ["root solid", "B solid"]])
    }

    @Test("a layer moved into a subtree that itself moved in the same commit leaves its old place: drawn once, at its new place; removed later, nothing of it is left")
    func moveIntoMovedSubtree() throws {
        let c = Layer(), d = Layer()
        c.frame = Rect(x: 40, y: 5, width: 50, height: 40)
        c.backgroundColor = Color(red: 0, green: 1, blue: 0)
        d.frame = Rect(x: 5, y: 5, width: 30, height: 30)
        c.addSublayer(d)
        root.insertSublayer(c, at: 0)
        let rig = try rig()
        rig.name(c, "C")
        rig.name(d, "D")
        _ = try rig.frame()
        // C re-ordered among its siblings (attached again) and A moved under D, inside C.
        root.addSublayer(c)
        d.addSublayer(a)
        a.position = Point(x: 15, y: 15)
        let f = try rig.frame()
        #expect(f.frame.rebuildReason == nil)
        // C's box (C moved to the top, A drawn once, inside it) and A's old box.
        #expect(rig.draws(f) == [["root solid", "C solid", "A solid"], ["root solid"]])
        // Removed now, nothing of it is left in the target (an item left at its old place
        // would be drawn, or read after the layer's node is gone).
        a.removeFromSuperlayer()
        c.backgroundColor = Color(red: 0, green: 0, blue: 1)
        let after = try rig.frame()
        #expect(after.frame.rebuildReason == nil)
        #expect(rig.draws(after) == [["root solid", "C solid"]])
        #expect(rig.builder.target?.items.count == 3)
    }

    @Test("a subtree inserted after a sibling that moves into that subtree in the same commit takes the sibling's place in paint order (not the end of the list), as a rebuilt frame draws it")
    func insertAfterSiblingTakenIntoIt() throws {
        let c = Layer(), n = Layer(), m = Layer()
        c.frame = Rect(x: 15, y: 15, width: 70, height: 70)
        c.backgroundColor = Color(red: 0, green: 1, blue: 0)
        root.addSublayer(c)   // root: A, B, C (C over both)
        let rig = try rig()
        rig.name(c, "C")
        rig.name(n, "N")
        rig.name(m, "M")
        _ = try rig.frame()
        // N (holding M) inserted just after A, then A moved into M: the root's edits are
        // "insert N after A" and "remove A", and making N's subtree takes A out first.
        n.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        m.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        n.addSublayer(m)
        root.insertSublayer(n, at: 1)
        m.addSublayer(a)
        #expect(root.sublayers.map(\.id) == [n.id, b.id, c.id])
        let f = try rig.frame()
        #expect(f.frame.rebuildReason == nil)
        var order: [LayerID] = []
        rig.builder.tree.nodes[root.id]?.children.forEach { order.append($0.id) }
        #expect(order == [n.id, b.id, c.id])
        // A, now inside N, is drawn first: C covers it.
        #expect(rig.draws(f).flatMap { $0 }.firstIndex(of: "A solid")! < rig.draws(f).flatMap { $0 }.firstIndex(of: "C solid")!)
        rig.builder.tree.needsRebuild = true
        let rebuilt = try rig.frame()
        #expect(rig.draws(rebuilt) == [["root solid", "A solid", "B solid", "C solid"]])
    }

    @Test("a zPosition change re-orders one layer: its box is damaged and it is drawn above its siblings there")
    func reorder() throws {
        let rig = try rig()
        b.frame = Rect(x: 20, y: 20, width: 20, height: 20)   // overlapping A
        _ = try rig.frame()
        a.zPosition = 1
        let f = try rig.frame()
        #expect(f.frame.rebuildReason == nil)
        #expect(f.damage == ["9,9,22,22"])
        #expect(rig.draws(f) == [["root solid", "B solid", "A solid"]])
    }

    @Test("setting a mask makes A a group: its image, its mask's image and the masked composite are rendered (in that order), the target draws the composite; removing it frees the three images")
    func maskToggle() throws {
        let rig = try rig()
        _ = try rig.frame()
        let m = Layer()
        m.frame = Rect(x: 0, y: 0, width: 10, height: 20)
        m.backgroundColor = .black
        a.mask = m
        var f = try rig.frame()
        #expect(f.frame.rebuildReason == nil)
        #expect(f.damage == ["9,9,22,22"])
        #expect(rig.tasks(f) == ["picture image of group A", "picture image of mask of A", "picture masked composite of A"])
        #expect(rig.draws(f) == [["root solid", "masked composite of A"]])
        // The tasks' passes run first, each ended before the next begins (the recording
        // encoder throws otherwise); the target's pass last.
        let passes = f.calls.filter { $0.hasPrefix("begin") }.map(rig.named)
        #expect(passes.count == 4 && passes.last == "begin target clear scissor (9, 9, 22×22 px)", "\(passes)")

        a.mask = nil
        f = try rig.frame()
        #expect(f.damage == ["9,9,22,22"])
        #expect(rig.tasks(f) == [])
        #expect(rig.draws(f) == [["root solid", "A solid"]])
        #expect(Set(f.frame.releasedImages.map(rig.describe)) == ["image of group A", "image of mask of A", "masked composite of A"])
    }

    @Test("a shadow on a plain layer is analytic (no task); its colour changing damages the shadow's box only; a sublayer makes it a shadow of the subtree's alpha (group image, then its blur)")
    func shadowChanges() throws {
        let rig = try rig()
        _ = try rig.frame()
        a.shadowOpacity = 1
        a.shadowRadius = 2
        a.shadowOffset = Size(width: 0, height: 4)
        var f = try rig.frame()
        // σ = 2 reaches 3σ past the offset rectangle (10, 14, 20×20), and a point more.
        #expect(f.damage == ["3,7,34,34"])
        #expect(rig.tasks(f) == [])
        #expect(rig.draws(f) == [["root solid", "A shadow", "A solid"]])

        a.shadowColor = Color(red: 0, green: 0, blue: 0.5)
        f = try rig.frame()
        #expect(f.damage == ["3,7,34,34"])
        #expect(rig.draws(f) == [["root solid", "A shadow", "A solid"]])

        let child = Layer()
        child.frame = Rect(x: 5, y: 5, width: 10, height: 10)
        child.backgroundColor = .white
        a.addSublayer(child)
        f = try rig.frame()
        #expect(f.frame.rebuildReason == nil)
        #expect(rig.tasks(f) == ["picture image of group A", "blur shadow of A"])
        #expect(rig.draws(f) == [["root solid", "shadow of A", "image of group A"]])
    }

    @Test("the executor hands the encoder one run per stretch of draws under the same clip; a clip or a backdrop ends a run")
    func drawRuns() throws {
        a.masksToBounds = true
        let c = Layer(), d = Layer(), e = Layer()
        c.frame = Rect(x: 5, y: 5, width: 20, height: 20)
        c.backgroundColor = .white
        a.addSublayer(c)
        d.frame = Rect(x: 40, y: 10, width: 15, height: 15)
        d.backgroundFilters = [.gaussianBlur(radius: 2)]
        e.frame = Rect(x: 40, y: 40, width: 10, height: 10)
        e.backgroundColor = .white
        root.addSublayer(d)
        root.addSublayer(e)
        let rig = try rig()
        let f = try rig.frame()
        #expect(f.calls.filter { !$0.hasPrefix("draw solid") }.map { $0.components(separatedBy: " ").prefix(2).joined(separator: " ") }
                == ["begin target", "push clip", "pop clip", "copy backdrop", "end", "blur backdrop", "resume target", "draw backdrop", "end"])
        // root and A; C inside A's clip; B; then (after D's backdrop) E.
        #expect(f.encoder.runs == [2, 1, 1, 1])
        #expect(f.encoder.draws["solid"] == 5)
    }

    @Test("an axis-aligned masksToBounds is the scissor's clip (the target pass needs no stencil); rounded or turned, a stencil level")
    func scissorOrStencilClip() throws {
        a.masksToBounds = true
        let c = Layer()
        c.frame = Rect(x: 5, y: 5, width: 20, height: 20)
        c.backgroundColor = .white
        a.addSublayer(c)
        let rig = try rig()
        var f = try rig.frame()
        #expect(f.frame.clips.count == 1 && f.frame.clips[0].isScissor && f.frame.clips[0].rect == Rect(x: 10, y: 10, width: 20, height: 20))
        #expect(!f.frame.target.usesStencil)
        a.cornerRadius = 4
        f = try rig.frame()
        #expect(f.frame.clips.count == 1 && !f.frame.clips[0].isScissor && f.frame.target.usesStencil)
        a.cornerRadius = 0
        f = try rig.frame()
        #expect(f.frame.clips.allSatisfy(\.isScissor) && !f.frame.target.usesStencil)
        a.transform = Transform3D(rotationAngle: 0.3, x: 0, y: 0, z: 1)
        f = try rig.frame()
        #expect(f.frame.clips.count == 1 && !f.frame.clips[0].isScissor && f.frame.target.usesStencil)
        a.transform = .identity
        c.masksToBounds = true
        let inner = Layer()
        inner.frame = Rect(x: 2, y: 2, width: 30, height: 30)
        inner.backgroundColor = .black
        c.addSublayer(inner)
        f = try rig.frame()
        // C's contents inside A's rectangle; C's sublayer inside their intersection: each one
        // scissor clip, neither inside the other.
        #expect(f.frame.clips.map(\.isScissor) == [true, true] && !f.frame.target.usesStencil)
        #expect(f.frame.clips.map(\.rect) == [Rect(x: 10, y: 10, width: 20, height: 20), Rect(x: 15, y: 15, width: 15, height: 15)])
        // A rectangle inside a rounded clip is a stencil level of its own, above the rounded one.
        a.cornerRadius = 3
        f = try rig.frame()
        #expect(f.frame.clips.map(\.isScissor) == [false, false] && f.frame.clips.map(\.parent) == [nil, 0] && f.frame.target.usesStencil)
    }
}
