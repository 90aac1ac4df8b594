import Foundation
import LaminaGeometry
import Testing
@_spi(Testing) @testable import LaminaGPU

/// GBM needs a DRM device, which only the test VM has (Tools/vm/run-in-vm.sh with vgem).
/// Tools/test.sh runs this suite there with LAMINA_GBM_TESTS=1, where it must pass.
@Suite("GBM backend (runs inside the test VM)", .enabled(if: insideGBMVM, "needs /dev/dri: Tools/test.sh runs this suite inside the VM"))
struct GBMTests {
    @Test("the gbm backend opens on a card node; the render node is tried and refused for allocation")
    func opensOnCardNode() throws {
        let d = try openDevice(.only(.gbm))
        #expect(d.backend == .gbm)
        #expect(d.backendDetail.hasPrefix("/dev/dri/card"))
        #expect(d.capabilities.dmaBufImport)
        // auto prefers gbm when it works.
        #expect(try openDevice(.auto).backend == .gbm)
    }

    @Test("a render node cannot allocate buffers with software GBM: the error says so")
    func renderNodeRefused() throws {
        let nodes = BackendOpener.drmNodes(requested: nil).filter { $0.contains("renderD") }
        try #require(!nodes.isEmpty, "the VM has a render node")
        do {
            _ = try GPUDevice(backend: .only(.gbm), drmDevice: nodes[0])
            Issue.record("software GBM allocated on a render node")
        } catch let error as GPUError {
            #expect(error.description.contains("render nodes cannot allocate dumb buffers"), "\(error)")
        }
    }

    @Test("render into a GBM buffer; GL readback, the CPU mapping of the dma-buf and a re-import agree")
    func renderExportCompare() throws {
        let d = try openDevice(.only(.gbm))
        let target = try GBMTarget(device: d, size: Size(width: 96, height: 64), scale: 1)
        try TestPattern.draw(on: target)
        let viaGL = try target.readPixels()
        #expect(viaGL[1, 1] == px(255, 0, 0) && viaGL[94, 62] == px(255, 255, 255))

        // 1. Through the buffer's CPU mapping (what another process sees).
        let viaMap = try target.readMappedPixels()
        let mapDiff = viaMap.difference(from: viaGL)
        #expect(mapDiff.differing == 0, "gbm_bo_map differs from GL readback in \(mapDiff.differing) pixels (max \(mapDiff.maxDifference))")

        // 2. Export the dma-buf and import it into a second texture, drawn 1:1 elsewhere.
        let buf = try target.exportDMABuf()
        #expect(buf.fd >= 0)
        #expect(buf.fourccString == "AR24")
        #expect(buf.width == 96 && buf.height == 64)
        #expect(buf.stride >= 96 * 4)
        let imported = try d.importDMABuf(buf)
        buf.close()
        let copy = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 96, height: 64))
        let pass = try d.beginRenderPass(on: copy, clear: .clear)
        try pass.draw(imported, in: Rect(x: 0, y: 0, width: 96, height: 64), minFilter: .nearest, magFilter: .nearest)
        pass.submit()
        let viaImport = try copy.readPixels()
        let importDiff = viaImport.difference(from: viaGL)
        #expect(importDiff.differing == 0, "re-imported dma-buf differs in \(importDiff.differing) pixels (max \(importDiff.maxDifference))")

        imported.release(); copy.release(); target.release()
        d.purgeCaches()
        #expect(d.liveObjectCounts.total == 0, "\(d.liveObjectCounts)")
    }

    @Test("a GBM target at scale 2 has twice the pixels and reads back exactly")
    func scaledGBM() throws {
        let d = try openDevice(.only(.gbm))
        let target = try GBMTarget(device: d, size: Size(width: 20, height: 10), scale: 2)
        #expect(target.pixelSize == PixelSize(width: 40, height: 20))
        let pass = try d.beginRenderPass(on: target, clear: .blue)
        try pass.fill(Rect(x: 5, y: 0, width: 10, height: 5), color: .yellow)
        pass.submit()
        let mapped = try target.readMappedPixels()
        let wrong = mapped.mismatches { x, y in (10..<30).contains(x) && (0..<10).contains(y) ? px(255, 255, 0) : px(0, 0, 255) }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("after a context loss a GBM target imports its buffer again: the buffer and its pixels survive, drawing works")
    func gbmTargetAfterContextLoss() throws {
        let d = try openDevice(.only(.gbm))
        let target = try GBMTarget(device: d, size: Size(width: 16, height: 8))
        var pass = try d.beginRenderPass(on: target, clear: .blue)
        pass.submit()
        d.simulateContextLoss()
        try d.recover()
        #expect(target.isLost, "lost with the context (it reads as released until restored)")
        try target.restoreAfterContextLoss()
        #expect(!target.isLost && !target.isReleased)
        let kept = try target.readMappedPixels()
        #expect(kept.mismatches { _, _ in px(0, 0, 255) }.isEmpty, "the kernel's buffer kept its pixels")
        pass = try d.beginRenderPass(on: target, clear: nil)
        try pass.fill(Rect(x: 0, y: 0, width: 8, height: 8), color: .yellow)
        pass.submit()
        let mapped = try target.readMappedPixels()
        let wrong = mapped.mismatches { x, _ in x < 8 ? px(255, 255, 0) : px(0, 0, 255) }
        #expect(wrong.isEmpty, "\(wrong)")
        target.release()
        d.purgeCaches()
        #expect(d.liveObjectCounts.total == 0, "\(d.liveObjectCounts)")
    }
}
