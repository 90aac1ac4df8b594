import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// A render tree fed by the model's commits that keeps every update it was handed.
@MainActor
private final class UpdateLog: RenderUpdateReceiver {
    let tree: RenderTree
    /// The tree's root, kept alive (a sublayer does not keep its superlayer).
    let root: Layer
    let context: TransactionContext
    var updates: [RenderUpdate] = []
    var deliveryRootID: LayerID? { tree.rootID }
    var maximumTextureSide: Int { 4096 }
    func receive(_ update: RenderUpdate) {
        updates.append(update)
        _ = tree.apply(update)
    }
    init(root: Layer) {
        tree = RenderTree(root: root.id, states: root.subtreeSnapshot().states)
        self.root = root
        context = root.transactionContext
        context.register(self)
    }
    /// Commits what changed and returns the update it brought (nil: none), let go of
    /// here (an update holds the states it brings).
    func commit() throws -> RenderUpdate? {
        try context.flush()
        defer { updates = [] }
        return updates.last
    }
}

@MainActor
@Suite("Delivery: a change of geometry, zPosition, opacity or visibility as a GeometryUpdate", .isolatedTransactions, .withoutImplicitAnimations)
struct GeometryUpdateTests {
    private func tree() throws -> (root: Layer, layer: Layer, log: UpdateLog) {
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        let layer = Layer()
        layer.frame = Rect(x: 10, y: 10, width: 20, height: 20)
        layer.backgroundColor = Color(red: 1, green: 0, blue: 0)
        root.addSublayer(layer)
        try root.transactionContext.flush()
        return (root, layer, UpdateLog(root: root))
    }

    /// `tree()` with a second layer, committed.
    private func treeWithTwo() throws -> (root: Layer, layer: Layer, other: Layer, log: UpdateLog) {
        let (root, layer, log) = try tree()
        let other = Layer()
        other.frame = Rect(x: 50, y: 50, width: 10, height: 10)
        root.addSublayer(other)
        _ = try log.commit()
        return (root, layer, other, log)
    }

    @Test("position, transform, zPosition, opacity and isHidden come as a GeometryUpdate, written in place into the state the tree alone holds")
    func inPlace() throws {
        let (_, layer, log) = try tree()
        let first = ObjectIdentifier(try #require(log.tree.state(of: layer.id)))
        layer.position = Point(x: 70, y: 40)
        layer.transform = Transform3D(rotationAngle: 0.5, x: 0, y: 0, z: 1)
        layer.zPosition = 2
        layer.opacity = 0.25
        layer.isHidden = true
        let update = try #require(try log.commit())
        #expect(update.layers.isEmpty)
        #expect(update.geometry.map(\.id) == [layer.id])
        #expect(update.geometry.first?.changes == [.geometry, .zPosition, .opacity, .hidden])
        let s = try #require(log.tree.state(of: layer.id))
        #expect(ObjectIdentifier(s) == first, "the node's own state, updated in place: none made, none freed")
        #expect(s.position == Point(x: 70, y: 40) && s.transform == Transform3D(rotationAngle: 0.5, x: 0, y: 0, z: 1))
        #expect(s.zPosition == 2 && s.opacity == 0.25 && s.isHidden)
        #expect(s.backgroundColor == Color(red: 1, green: 0, blue: 0), "what the update does not carry is kept")
        #expect(log.tree.nodes[layer.id]?.changes.isSuperset(of: [.geometry, .zPosition, .opacity, .hidden]) == true)
    }

    @Test("geometry changes in the same order each commit reach the right nodes, also after a layer leaves and comes back as a new node")
    func sameOrderEachCommit() throws {
        let (root, layer, other, log) = try treeWithTwo()
        for step in 1...3 {
            layer.position = Point(x: Double(20 + step), y: 20)
            other.position = Point(x: 55, y: Double(55 + step))
            #expect(try log.commit()?.geometry.map(\.id) == [layer.id, other.id])
            #expect(log.tree.state(of: layer.id)?.position == Point(x: Double(20 + step), y: 20))
            #expect(log.tree.state(of: other.id)?.position == Point(x: 55, y: Double(55 + step)))
        }
        // It leaves (its node goes) and comes back (a new node for the same layer).
        let before = try #require(log.tree.nodes[layer.id])
        layer.removeFromSuperlayer()
        _ = try log.commit()
        #expect(log.tree.nodes[layer.id] == nil)
        root.insertSublayer(layer, at: 0)
        _ = try log.commit()
        let after = try #require(log.tree.nodes[layer.id])
        #expect(after !== before)
        layer.position = Point(x: 40, y: 40)
        other.position = Point(x: 70, y: 70)
        #expect(try log.commit()?.geometry.map(\.id) == [layer.id, other.id])
        #expect(after.state.position == Point(x: 40, y: 40), "the node in the tree, not the one that left")
        #expect(log.tree.state(of: other.id)?.position == Point(x: 70, y: 70))
        // Another order: found by id.
        other.position = Point(x: 71, y: 71)
        layer.position = Point(x: 41, y: 41)
        #expect(try log.commit()?.geometry.map(\.id) == [other.id, layer.id])
        #expect(after.state.position == Point(x: 41, y: 41) && log.tree.state(of: other.id)?.position == Point(x: 71, y: 71))
    }

    @Test("an update a renderer keeps is not changed by later deliveries (the context reuses its arrays)")
    func keptUpdateStaysAsDelivered() throws {
        let (_, layer, other, log) = try treeWithTwo()
        layer.position = Point(x: 30, y: 30)
        try log.context.flush()
        let kept = try #require(log.updates.last)   // (the log keeps it: the arrays are shared)
        other.position = Point(x: 60, y: 60)
        other.opacity = 0.5
        try log.context.flush()
        let later = try #require(log.updates.last)
        #expect(kept.geometry.map(\.id) == [layer.id] && kept.geometry.first?.changes == [.geometry])
        #expect(later.geometry.map(\.id) == [other.id] && later.geometry.first?.changes == [.geometry, .opacity])
        // Let go of (the arrays are the context's alone again): delivered as before.
        log.updates = []
        for step in 1...3 {
            layer.position = Point(x: Double(30 + step), y: 30)
            #expect(try log.commit()?.geometry.map(\.id) == [layer.id])
            #expect(log.tree.state(of: layer.id)?.position == Point(x: Double(30 + step), y: 30))
        }
        layer.backgroundColor = Color(red: 0, green: 0, blue: 1)
        let whole = try #require(try log.commit())
        #expect(whole.geometry.isEmpty && whole.layers.map(\.id) == [layer.id], "nothing left over from the last delivery")
    }

    @Test("a state someone else holds is never changed: the update goes into a copy")
    func sharedStateIsCopied() throws {
        let (_, layer, log) = try tree()
        let held = try #require(log.tree.state(of: layer.id))
        layer.position = Point(x: 50, y: 60)
        #expect(try log.commit()?.geometry.count == 1)
        let now = try #require(log.tree.state(of: layer.id))
        #expect(now !== held)
        #expect(held.position == Point(x: 20, y: 20), "the state held elsewhere still shows the old position")
        #expect(now.position == Point(x: 50, y: 60))
        #expect(now.backgroundColor == held.backgroundColor && now.contents == nil)
    }

    @Test("other changes, animations, out-of-line properties and new layers come as whole states")
    func wholeStates() throws {
        let (root, layer, log) = try tree()
        layer.position = Point(x: 30, y: 30)
        layer.backgroundColor = Color(red: 0, green: 0, blue: 1)
        var update = try #require(try log.commit())
        #expect(update.geometry.isEmpty && update.layers.map(\.id) == [layer.id])

        layer.shadowPath = Path(rect: Rect(x: 0, y: 0, width: 20, height: 20))
        _ = try log.commit()
        layer.position = Point(x: 40, y: 40)
        update = try #require(try log.commit())
        #expect(update.geometry.isEmpty && update.layers.map(\.id) == [layer.id], "a layer with a shadowPath")

        let other = Layer()
        other.frame = Rect(x: 0, y: 0, width: 5, height: 5)
        root.addSublayer(other)
        update = try #require(try log.commit())
        #expect(update.geometry.isEmpty && Set(update.layers.map(\.id)) == [root.id, other.id])

        var fade = BasicAnimation(keyPath: "opacity")
        fade.fromValue = .number(0); fade.toValue = .number(1); fade.duration = 10
        other.add(fade, forKey: "fade")
        _ = try log.commit()
        other.position = Point(x: 50, y: 50)
        update = try #require(try log.commit())
        #expect(update.geometry.isEmpty && update.layers.map(\.id) == [other.id], "a layer with animations")
    }

    @Test("a zPosition that comes as a GeometryUpdate reorders the layer among its siblings")
    func zPositionReorders() throws {
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        let below = Layer(), above = Layer()
        below.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        above.frame = Rect(x: 20, y: 20, width: 50, height: 50)   // (overlapping; the rig names draws by place)
        root.addSublayer(below)
        root.addSublayer(above)
        below.backgroundColor = Color(red: 1, green: 0, blue: 0)
        above.backgroundColor = Color(red: 0, green: 0, blue: 1)
        try root.transactionContext.flush()
        let rig = FrameRig(root: root)
        rig.name(below, "red")
        rig.name(above, "blue")
        _ = try rig.frame()
        below.zPosition = 1
        let result = try rig.frame()
        let drawn = rig.draws(result).flatMap { $0 }.filter { $0 == "red solid" || $0 == "blue solid" }
        #expect(drawn == ["blue solid", "red solid"], "red (zPosition 1) drawn last, over blue: \(drawn)")
    }
}
