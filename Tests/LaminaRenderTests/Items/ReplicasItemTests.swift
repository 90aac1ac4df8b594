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
    /// A replicator `L` (`FrameRig.single`) of `instances` copies `spacing` points apart
    /// along x, holding one white 8×8 sublayer (returned), set up further by `configure`.
    static func replicator(instances: Int, spacing: Double, _ configure: (ReplicatorLayer) -> Void = { _ in })
        throws -> (FrameRig, ReplicatorLayer, Layer) {
        let dot = Layer()
        let (rig, r) = try FrameRig.single(ReplicatorLayer()) {
            $0.instanceCount = instances
            $0.instanceTransform = Transform3D(translationX: spacing, y: 0, z: 0)
            configure($0)
            dot.frame = Rect(x: 0, y: 0, width: 8, height: 8)
            dot.backgroundColor = .white
            $0.addSublayer(dot)
        }
        return (rig, r, dot)
    }

    @Test("three instances: one picture of the sublayers, three draws of it (moved by instanceTransform, tinted); more instances or a move render no image again")
    func instances() throws {
        let (rig, r, _) = try Self.replicator(instances: 3, spacing: 12)
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

    @Test("a replicator that is a group: its sublayers' image is worked out before the group's content, so a sublayer moved beyond the instances' old box grows the group's image in the same frame, as a rebuilt frame has it")
    func replicasBeforeTheirGroup() throws {
        let (rig, r, dot) = try Self.replicator(instances: 2, spacing: 10) {
            $0.backgroundColor = .white
            $0.opacity = 0.5   // (its colour and its instances: a group)
        }
        // Both surfaces changed in one frame, at the same nesting depth from the target
        // were it counted by owner alone: the order of the two must not depend on a set's.
        #expect(rig.builder.depth(of: .replicas(of: r.id)) == rig.builder.depth(of: .group(r.id)) + 1)
        func groupImageRect(_ f: FrameRig.Result) -> Rect? {
            f.frame.target.runs.flatMap(\.draws).compactMap { d -> Rect? in
                if case let .image(i) = d.op, rig.describe(i.image) == "image of group L" { return i.rect }
                return nil
            }.first
        }
        r.backgroundColor = Color(red: 0, green: 0.5, blue: 1)
        dot.position = Point(x: 4, y: 40)   // (the instances now reach 14 points below the replicator)
        let incremental = try #require(groupImageRect(try rig.frame()))
        rig.builder.tree.needsRebuild = true
        let rebuilt = try #require(groupImageRect(try rig.frame()))
        #expect(incremental == rebuilt)
        #expect(incremental.maxY >= 20 + 44, "the moved instances are inside the group's image: \(incremental)")
    }
}
