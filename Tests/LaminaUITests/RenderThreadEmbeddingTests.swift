import CEGL
import CGLES
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import Testing
import LaminaTestSupport

/// A host program with a render thread of its own: its EGL context is current on that
/// thread, where it draws its frame and lets Lamina draw its part (`serviceFrame()`).
private final class HostRenderThread: @unchecked Sendable {
    struct Frame { var index: Int; var pixel: RGBAPixel; var hostPixel: RGBAPixel }
    let size = PixelSize(width: 96, height: 64)
    let ready = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let state = Locked<(device: GPUDevice?, target: ExternalFramebufferTarget?, lamina: RenderThread?, running: Bool,
                        frames: [Frame], error: String?)>((nil, nil, nil, true, [], nil))

    func start() {
        Thread { [self] in
            do {
                // The host's context, current on this thread; Lamina adopts it here.
                let host = try TestHost()
                let framebuffer = host.makeFramebuffer(size)
                let device = try GPUDevice(adopting: .current)
                let target = try ExternalFramebufferTarget(device: device, framebuffer: framebuffer.fbo, pixelSize: size)
                state.withLock { $0.device = device; $0.target = target }
                ready.signal()
                var index = 0
                while true {
                    let (lamina, running) = state.withLock { ($0.lamina, $0.running) }
                    guard running || (lamina.map { !$0.hasStopped } ?? false) else { break }
                    // The host's frame: its own background, then Lamina's part over it.
                    host.fill(framebuffer.fbo, PixelRect(size: size), (0.5, 0.5, 0.5, 1), size: size)
                    lamina?.serviceFrame()
                    let image = host.read(framebuffer.fbo, size: size)
                    state.withLock { $0.frames.append(Frame(index: index, pixel: image[20, 20], hostPixel: image[80, 50])) }
                    index += 1
                    usleep(2000)
                }
                device.close()
                host.destroy()
            } catch {
                state.withLock { $0.error = "\(error)" }
                ready.signal()
            }
            done.signal()
        }.start()
    }
}

@MainActor
@Suite("Render thread in a host's own render thread (adopted context)", .isolatedTransactions)
struct RenderThreadEmbeddingTests {
    @Test("a host whose EGL context is current on its own render thread adopts it there; Lamina composites over the host's frame in each serviceFrame(); commits reach it, flush() waits for the host's next frame")
    func adoptedOnHostRenderThread() throws {
        let hostThread = HostRenderThread()
        hostThread.start()
        hostThread.ready.wait()
        if let error = hostThread.state.withLock({ $0.error }) { Issue.record("host thread: \(error)"); return }
        let target = try #require(hostThread.state.withLock { $0.target })
        do {
            let root = Layer()
            root.frame = Rect(x: 0, y: 0, width: 96, height: 64)
            let panel = Layer()
            panel.frame = Rect(x: 8, y: 8, width: 40, height: 30)
            panel.backgroundColor = .red
            root.addSublayer(panel)
            let host = LayerTreeHost(rootLayer: root, target: target, background: nil, rendersOnThread: true,
                                     renderDriver: .external)
            host.compositesEveryFrame = true
            let lamina = try #require(host.renderThread)
            hostThread.state.withLock { $0.lamina = lamina }
            try Transaction.flush()
            // Frames the host made after the flush show Lamina's red panel over its grey.
            var frames = hostThread.state.withLock { $0.frames }
            let first = frames.count
            while hostThread.state.withLock({ $0.frames.count }) < first + 3 { usleep(2000) }
            frames = hostThread.state.withLock { $0.frames }
            for f in frames[first...] {
                #expect(f.pixel == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "frame \(f.index): \(f.pixel)")
                #expect(abs(Int(f.hostPixel.r) - 128) <= 1 && f.hostPixel.g == f.hostPixel.r, "the host's own frame: \(f.hostPixel)")
            }
            Transaction.setDisableActions(true)   // a change shown at once, not animated
            panel.backgroundColor = .blue
            try Transaction.flush()
            let after = hostThread.state.withLock { $0.frames.count }
            while hostThread.state.withLock({ $0.frames.count }) < after + 3 { usleep(2000) }
            frames = hostThread.state.withLock { $0.frames }
            for f in frames[after...] {
                #expect(f.pixel == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "frame \(f.index) after the change: \(f.pixel)")
            }
            host.detach()
        }
        hostThread.state.withLock { $0.running = false }
        hostThread.done.wait()
    }
}
