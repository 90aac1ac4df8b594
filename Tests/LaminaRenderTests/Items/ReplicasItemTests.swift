import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// ReplicasItem (Sources/LaminaRender/Items/ReplicasItem.swift): a replicator's sublayers'
/// image, rendered once, drawn once per instance.
@MainActor
@Suite("Item kinds: replicator instances", .isolatedTransactions, .withoutImplicitAnimations)
struct ReplicasItemTests {
    @Test("three instances: one picture of the sublayers, three draws of it (moved by instanceTransform, tinted); more instances or a move render no image again")
    func instances() throws {
        let dot = Layer()
        let (rig, r) = try FrameRig.single(ReplicatorLayer()) {
            $0.instanceCount = 3
            $0.instanceTransform = Transform3D(translationX: 12, y: 0, z: 0)
            dot.frame = Rect(x: 0, y: 0, width: 8, height: 8)
            dot.backgroundColor = .white
            $0.addSublayer(dot)
        }
        rig.builder.tree.needsRebuild = true
        var f = try rig.frame()
        #expect(rig.tasks(f) == ["picture image of replicas of L"])
        #expect(rig.draws(f) == [Array(repeating: "image of replicas of L", count: 3)])
        let xs = f.frame.target.runs.flatMap(\.draws).compactMap { d -> Double? in if case let .image(i) = d.op { return i.transform.m41 }; return nil }
        #expect(xs == [0, 12, 24])
        r.instanceCount = 4
        f = try rig.frame()
        #expect(rig.tasks(f) == [] && rig.draws(f).flatMap { $0 }.count == 4)
        r.position.x += 3
        f = try rig.frame()
        #expect(rig.tasks(f) == [])
    }
}
