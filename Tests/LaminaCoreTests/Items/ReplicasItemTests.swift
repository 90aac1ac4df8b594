import CGLES
import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

// Replicator layers (Sources/LaminaRender/Items/ReplicasItem.swift).
private final class Dot: Layer {
    var red = 0.8
    override func draw(in ctx: GraphicsContext) {
        ctx.setFillColor(Color(red: red, green: 0.6, blue: 0.4))
        ctx.fillEllipse(in: bounds)
    }
}

extension EffectsTests {
    @Test("a ReplicatorLayer equals the same sublayer placed and tinted by hand for each instance (translation, colour offsets; within 2/255), drawn once")
    func replicatorReftest() throws {
        let root = rootLayer()
        let r = ReplicatorLayer()
        r.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let dot = Dot()
        dot.frame = Rect(x: 10, y: 80, width: 30, height: 30)
        dot.setNeedsDisplay()
        r.addSublayer(dot)
        r.instanceCount = 4
        r.instanceTransform = Transform3D(translationX: 45, y: 5)
        r.instanceRedOffset = -0.25
        r.instanceAlphaOffset = -0.2
        root.addSublayer(r)
        try Transaction.flush()
        let (image, stats) = try render(root)
        #expect(dot.displayCount == 1 && stats.offscreenPasses == 1, "\(stats)")
        let root2 = rootLayer()
        for k in 0..<4 {
            let copy = Dot()
            copy.frame = Rect(x: 10 + 45 * Double(k), y: 80 + 5 * Double(k), width: 30, height: 30)
            copy.setNeedsDisplay()
            // The instance colour multiplies the dot's (one flat colour): the same dot in the
            // product colour, at the instance's alpha.
            copy.red = 0.8 * (1 - 0.25 * Double(k))
            let holder = Layer()
            holder.frame = root2.bounds
            holder.opacity = 1 - 0.2 * Double(k)
            holder.addSublayer(copy)
            root2.addSublayer(holder)
        }
        try Transaction.flush()
        let (reference, _) = try render(root2)
        let d = image.difference(from: reference, tolerance: 2)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
        #expect(image[25 + 135, 95 + 15] != white)
    }

    @Test("replicator instances turn about the replicator's anchor point; changing the instances or moving the replicator draws no sublayer again and renders no image again")
    func replicatorRotationAndCounts() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let r = ReplicatorLayer()
        r.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let dot = Dot()
        dot.frame = Rect(x: 90, y: 10, width: 20, height: 20)
        dot.setNeedsDisplay()
        r.addSublayer(dot)
        r.instanceCount = 4
        r.instanceTransform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        root.addSublayer(r)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        try Transaction.flush()
        let image = try target.readPixels()
        let dotColor = px(204, 153, 102)
        for (x, y) in [(100, 20), (180, 100), (100, 180), (20, 100)] {
            #expect(image[x, y] == dotColor, "an instance at (\(x), \(y)): \(image[x, y])")
        }
        #expect(image[100, 100] == white)
        r.instanceCount = 2
        r.instanceColor = Color(red: 1, green: 0, blue: 0)
        try Transaction.flush()
        #expect(host.lastFrame.offscreenPasses == 0 && dot.displayCount == 1, "\(host.lastFrame)")
        let fewer = try target.readPixels()
        #expect(fewer[100, 180] == white && fewer[180, 100] == px(204, 0, 0))
        r.position = Point(x: 110, y: 100)
        try Transaction.flush()
        #expect(dot.displayCount == 1 && host.lastFrame.textureBytesUploaded == 0)
        #expect(try target.readPixels()[190, 100] == px(204, 0, 0))
    }
}

extension EffectsTests {
    @Test("instanceDelay: instance k shows its sublayers' animations k × delay earlier (colours at fixed times, computed here), redrawn per frame only where they change; after the animation the instances are one image again and nothing is left on the GPU")
    func replicatorInstanceDelay() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let root = rootLayer(width: 200, height: 60)
        let r = ReplicatorLayer()
        r.frame = Rect(x: 0, y: 0, width: 200, height: 60)
        r.instanceCount = 4
        r.instanceTransform = Transform3D(translationX: 40, y: 0)
        r.instanceDelay = 0.5
        let dot = Layer()
        dot.frame = Rect(x: 10, y: 20, width: 20, height: 20)
        dot.backgroundColor = .blue                                  // the model's colour
        r.addSublayer(dot)
        root.addSublayer(r)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 200, height: 60)),
                                 background: .white)
        defer { host.detach() }
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        try Transaction.flush()
        let baseline = device.liveObjectCounts
        var fade = BasicAnimation(keyPath: "backgroundColor")
        fade.fromValue = .color(.red)
        fade.toValue = .color(.blue)
        fade.duration = 2
        fade.beginTime = start
        fade.timingFunction = .linear
        fade.fillMode = .both
        dot.add(fade, forKey: "fade")
        for t in [0.75, 1.5, 2.25] {
            MediaClock.set(start + t)
            try TransactionContext.current.commitIfNeeded()
            let image = try host.target.readPixels()
            for k in 0..<4 {
                // Instance k at t − 0.5k: red → blue linearly over 2 s, red before (fill backwards), blue after.
                let f = min(max((t - 0.5 * Double(k)) / 2, 0), 1)
                let expected = RGBAPixel(r: UInt8((255 * (1 - f)).rounded()), g: 0, b: UInt8((255 * f).rounded()), a: 255)
                let got = image[20 + 40 * k, 30]
                #expect(got.maxChannelDifference(expected) <= 1, "instance \(k) at \(t) s: \(got), expected \(expected)")
            }
            #expect(image[20 + 40 * 4, 30] == RGBAPixel(r: 255, g: 255, b: 255, a: 255), "4 instances only")
            let damage = host.lastFrame.damageRects.reduce(Rect.zero) { $0 == .zero ? $1 : $0.union($1) }
            #expect(damage.minX >= 8 && damage.maxX <= 152 && damage.minY >= 18 && damage.maxY <= 42, "only the instances: \(damage) \(host.lastFrame.damageRects)")
        }
        // At 3.6 s the animation has ended (removed) for the model: every instance shows blue again, one shared image.
        MediaClock.set(start + 3.6)
        try TransactionContext.current.commitIfNeeded()
        try TransactionContext.current.commitIfNeeded()
        let image = try host.target.readPixels()
        for k in 0..<4 { #expect(image[20 + 40 * k, 30] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "instance \(k) after the end") }
        #expect(device.liveObjectCounts == baseline, "the delayed instances' images are freed: \(device.liveObjectCounts) vs \(baseline)")
    }
}
