import Foundation
import LaminaGeometry
@_spi(Testing) import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// Cases a review of issue 11 found (each failed or trapped before its fix).
@MainActor
@Suite("Edge cases: a root inside an unhosted tree, an invalidation left far outside new bounds, a context-loss handler's objects", .isolatedTransactions, .withoutImplicitAnimations)
struct DeliveryEdgeCaseTests {
    @Test("a rendered root that has a superlayer outside every hosted tree still gets its changes")
    func renderedRootWithSuperlayer() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 20, height: 20))
        let outer = Layer(), root = rootLayer(width: 20, height: 20)
        outer.addSublayer(root)
        let child = solid(Rect(x: 0, y: 0, width: 20, height: 20), .red)
        root.addSublayer(child)
        try Transaction.flush()
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        try compositor.render(root, to: target, background: .white)
        #expect(try target.readPixels()[10, 10] == red)
        child.backgroundColor = .blue
        try Transaction.flush()
        let stats = try compositor.render(root, to: target, background: .white)
        #expect(!stats.skipped, "the change reached the compositor")
        #expect(try target.readPixels()[10, 10] == blue)
    }

    @Test("a rectangle invalidated before the bounds moved far away does not trap the next draw")
    func staleDirtyRect() throws {
        let s = try Scene(width: 40, height: 40)
        let layer = s.addCountingLayer(Rect(x: 0, y: 0, width: 20, height: 20))
        try Transaction.flush()
        layer.setNeedsDisplay(Rect(x: 0, y: 0, width: 10, height: 10))
        layer.bounds = Rect(x: 1e19, y: 0, width: 20, height: 20)
        try Transaction.flush()
        #expect(layer.displayCount >= 1)
        s.host.detach()
    }

    @Test("contextLossHandler runs once the device has its new context: what it makes is shown")
    func handlerAfterRecovery() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 20, height: 20))
        let root = rootLayer(width: 20, height: 20)
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        var calls = 0
        compositor.contextLossHandler = { _ in
            calls += 1
            #expect(!device.isContextLost)
            let t = try? device.makeTexture(pixelSize: PixelSize(width: 2, height: 2), pixels: RGBAImage(width: 2, height: 2, fill: green))
            root.contents = t.map { .texture($0) }
        }
        try Transaction.flush()
        try compositor.render(root, to: target, background: .white)
        device.simulateContextLoss()
        let stats = try compositor.render(root, to: target, background: .white)
        #expect(calls == 1 && stats.recoveredFromContextLoss)
        #expect(try target.readPixels()[10, 10] == green, "the texture made in the handler is drawn")
        // A recover() done elsewhere between frames leaves no stale error behind.
        device.simulateContextLoss()
        try device.recover()
        root.contents = .image(ContentImage(RGBAImage(width: 2, height: 2, fill: blue)))
        try Transaction.flush()
        let next = try compositor.render(root, to: target, background: .white)
        #expect(next.recoveredFromContextLoss && calls == 1)
        #expect(try target.readPixels()[10, 10] == blue)
    }
}
