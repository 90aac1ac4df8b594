import Foundation
import LaminaGeometry
import Testing
@testable import LaminaGPU

@Suite("GL object lifetime")
struct LifetimeTests {
    @Test("live counts per kind rise with creation and return to zero after releasing everything")
    func countsReturnToZero() throws {
        let d = try openDevice()
        #expect(d.liveObjectCounts.total == 0)
        let texture = try d.makeTexture(pixelSize: PixelSize(width: 8, height: 8))
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 32, height: 32))
        let pass = try d.beginRenderPass(on: target, clear: .black)
        try pass.draw(texture, in: Rect(x: 0, y: 0, width: 8, height: 8))
        try pass.fill(Rect(x: 8, y: 8, width: 8, height: 8), color: .red)
        pass.submit()
        let counts = d.liveObjectCounts
        #expect(counts[.texture] == 2)        // ours + the target's
        #expect(counts[.framebuffer] == 1)
        #expect(counts[.program] == 2)        // batched solid + texture, cached
        #expect(counts[.buffer] == 2)         // the quad batch's vertices and indices
        #expect(counts[.vertexArray] == 1)    // the quad batch's
        texture.release()
        target.release()
        #expect(d.liveObjectCounts[.texture] == 0 && d.liveObjectCounts[.framebuffer] == 0)
        d.purgeCaches()
        #expect(d.liveObjectCounts.total == 0, "\(d.liveObjectCounts)")
        texture.release()   // twice is harmless
        #expect(d.liveObjectCounts.total == 0)
    }

    @Test("a wrapper dropped without release() is queued, not deleted from its deinit, and collected on the device's thread")
    func droppedObjectsAreCollected() throws {
        let d = try openDevice()
        do {
            _ = try d.makeTexture(pixelSize: PixelSize(width: 4, height: 4))
        }
        #expect(d.pendingDeletions == 1)
        #expect(d.liveObjectCounts[.texture] == 1)   // the GL name still exists
        d.collectGarbage()
        #expect(d.pendingDeletions == 0)
        #expect(d.liveObjectCounts[.texture] == 0)
    }

    @Test("a render pass collects dropped objects first")
    func passCollects() throws {
        let d = try openDevice()
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 4))
        do { _ = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 4)) }
        #expect(d.pendingDeletions == 3)   // its texture, framebuffer and depth/stencil renderbuffer
        try d.beginRenderPass(on: target, clear: .black).submit()
        #expect(d.pendingDeletions == 0)
        #expect(d.liveObjectCounts[.texture] == 1 && d.liveObjectCounts[.framebuffer] == 1 && d.liveObjectCounts[.renderbuffer] == 1)
    }

    @Test("closing the device destroys its context (freeing every name) and resets the counts; later releases are no-ops and new work throws")
    func close() throws {
        let d = try openDevice()
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 4))
        #expect(d.liveObjectCounts.total == 3)   // texture, framebuffer, depth/stencil renderbuffer
        d.close()
        #expect(d.isClosed)
        #expect(d.liveObjectCounts.total == 0)
        #expect(d.pendingDeletions == 0)
        target.release()
        #expect(throws: GPUError.deviceClosed(operation: "makeTexture")) {
            _ = try d.makeTexture(pixelSize: PixelSize(width: 1, height: 1))
        }
        #expect(throws: GPUError.deviceClosed(operation: "beginRenderPass")) {
            _ = try d.beginRenderPass(on: target)
        }
        d.close()   // twice is harmless
    }
}
