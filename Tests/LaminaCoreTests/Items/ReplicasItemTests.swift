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
