import Foundation
import LaminaGeometry
@_spi(Testing) import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// Context loss (issue 11): llvmpipe never resets, so the loss is simulated
/// (`GPUDevice.simulateContextLoss()`), which makes the device behave as the driver's
/// reset status would — the next frame boundary sees it, the device re-creates its
/// context, and the compositor makes everything again so that the frame is correct.
@MainActor
@Suite("Context loss", .isolatedTransactions, .withoutImplicitAnimations)
struct ContextLossTests {
    /// A tree using every kind of GPU state the compositor keeps: atlas contents, a
    /// texture of its own (large image), a backing store, a group image, a clip.
    private func makeTree() -> (root: Layer, drawn: CountingLayer) {
        let root = rootLayer(width: 120, height: 120)
        root.backgroundColor = .white
        let small = Layer()
        small.frame = Rect(x: 4, y: 4, width: 20, height: 20)
        small.contents = .image(ContentImage(RGBAImage(width: 8, height: 8, fill: green)))
        root.addSublayer(small)
        let large = Layer()
        large.frame = Rect(x: 30, y: 4, width: 40, height: 20)
        large.contents = .image(ContentImage(RGBAImage(width: 300, height: 300, fill: blue)))
        root.addSublayer(large)
        let drawn = CountingLayer()
        drawn.frame = Rect(x: 4, y: 30, width: 30, height: 30)
        drawn.setNeedsDisplay()
        root.addSublayer(drawn)
        let group = Layer()
        group.frame = Rect(x: 40, y: 40, width: 60, height: 60)
        group.opacity = 0.5
        group.masksToBounds = true
        group.cornerRadius = 10
        group.addSublayer(solid(Rect(x: -10, y: -10, width: 50, height: 50), .red))
        group.addSublayer(solid(Rect(x: 20, y: 20, width: 50, height: 50), .blue))
        root.addSublayer(group)
        return (root, drawn)
    }

    @Test("a lost context is recovered at the next frame: same pixels, contents re-uploaded, not redrawn")
    func recoversAtTheNextFrame() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        #expect(device.notifiesResets, "llvmpipe offers EGL_EXT_create_context_robustness and GL_KHR_robustness")
        let compositor = LayerRenderer(device: device)
        var losses: [GPUError] = []
        compositor.contextLossHandler = { losses.append($0) }
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 120, height: 120))
        let (root, drawn) = makeTree()
        try Transaction.flush()
        let first = try compositor.render(root, to: target, background: .white)
        #expect(!first.recoveredFromContextLoss && first.offscreenPasses == 1)
        let before = try target.readPixels()
        let liveBefore = device.liveObjectCounts
        let generation = device.contextGeneration
        #expect(drawn.displayCount == 1)

        device.simulateContextLoss()
        #expect(device.isContextLost)
        #expect(throws: GPUError.self) { try device.checkContext() }
        // The target's texture went with the context: it is lost, not released by us.
        #expect(!target.isLost, "not lost until the device recovers")
        let stats = try compositor.render(root, to: target, background: .white)
        #expect(stats.recoveredFromContextLoss)
        #expect(losses.count == 1)
        if case .contextLost(let status, _)? = losses.first { #expect(status == "simulated loss") } else { Issue.record("\(losses)") }
        #expect(device.contextGeneration == generation + 1 && !device.isContextLost)
        #expect(!target.isLost && !target.isReleased, "the target made its texture and framebuffer again")
        #expect(drawn.displayCount == 1, "the backing store was uploaded again from its pixels, not redrawn")
        #expect(stats.textureBytesUploaded >= 8 * 8 * 4 + 300 * 300 * 4 + 30 * 30 * 4, "every content uploaded again: \(stats.textureBytesUploaded) B")
        #expect(stats.offscreenPasses == 1, "the group image rendered again")
        let after = try target.readPixels()
        #expect(after.bytes == before.bytes, "the recovered frame equals the frame before the loss")
        #expect(device.liveObjectCounts == liveBefore, "the same objects live as before: \(device.liveObjectCounts) vs \(liveBefore)")

        // Later frames are ordinary again.
        drawn.color = .green
        drawn.setNeedsDisplay()
        try Transaction.flush()
        let next = try compositor.render(root, to: target, background: .white)
        #expect(!next.recoveredFromContextLoss && drawn.displayCount == 2)
        #expect(try target.readPixels()[10, 40] == green)
        compositor.release()
        target.release()
        let counts = device.liveObjectCounts   // the device keeps its programs, samplers and quad buffers
        #expect(counts[.texture] == 0 && counts[.framebuffer] == 0 && counts[.renderbuffer] == 0, "nothing leaks: \(counts)")
        device.close()
    }

    @Test("objects made before the loss read as released; releasing them calls no GL and leaks nothing")
    func oldObjectsAreGone() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 4, height: 4))
        let onTexture = try OffscreenTarget(device: device, texture: texture)
        device.simulateContextLoss()
        try device.recover()
        #expect(texture.isReleased && onTexture.isLost)
        #expect(throws: GPUError.self) { try onTexture.restoreAfterContextLoss() }   // the caller's texture: make both again
        let bytes = [UInt8](repeating: 0, count: 64)
        #expect(throws: GPUError.self) { try bytes.withUnsafeBytes { try texture.upload($0, bytesPerRow: 16) } }
        // A new object may get the same GL name as a lost one: releasing the lost one must not delete it.
        let fresh = try device.makeTexture(pixelSize: PixelSize(width: 4, height: 4))
        #expect(fresh.glName == texture.glName, "the new context hands out the lost texture's name again (what this case is about)")
        texture.release()
        onTexture.release()
        #expect(!fresh.isReleased)
        #expect(try bytes.withUnsafeBytes { try fresh.upload($0, bytesPerRow: 16) } == 64)
        #expect(device.liveObjectCounts[.texture] == 1)
        fresh.release()
        #expect(device.liveObjectCounts.total == 0)
    }

    @Test("a texture shown as contents is lost with the context: not drawn, never a trap")
    func lostContentsTexture() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 20, height: 20))
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 2, height: 2), pixels: RGBAImage(width: 2, height: 2, fill: red))
        let root = rootLayer(width: 20, height: 20)
        root.contents = .texture(texture)
        try Transaction.flush()
        try compositor.render(root, to: target, background: .white)
        #expect(try target.readPixels()[10, 10] == red)
        device.simulateContextLoss()
        let stats = try compositor.render(root, to: target, background: .white)
        #expect(stats.recoveredFromContextLoss)
        #expect(try target.readPixels()[10, 10] == white, "the lost texture is not drawn")
        compositor.release()
        target.release()
        device.close()
    }

    @Test("a hosted tree that does not change is drawn again at the end of the turn after a loss")
    func hostRecoversWithoutChanges() throws {
        let s = try Scene(width: 60, height: 60)
        let layer = s.addCountingLayer(Rect(x: 10, y: 10, width: 20, height: 20))
        try Transaction.flush()
        let before = try s.pixels()
        #expect(before[15, 15] == red && layer.displayCount == 1)
        s.device.simulateContextLoss()
        #expect(!Transaction.needsCommit, "nothing changed")
        try Transaction.commitIfNeeded()   // the end of a turn: the lost context alone asks for a frame
        #expect(s.host.lastFrame.recoveredFromContextLoss)
        #expect(try s.pixels().bytes == before.bytes)
        #expect(layer.displayCount == 1, "uploaded again, not redrawn")
        s.host.detach()
    }
}
