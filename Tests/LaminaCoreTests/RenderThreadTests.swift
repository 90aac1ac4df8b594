import Foundation
import LaminaGeometry
@_spi(Testing) import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// The left edge of the first run of red pixels on row `y` (nil: none).
private func redEdge(_ image: RGBAImage, row y: Int) -> Int? {
    (0..<image.width).first { x in
        let p = image[x, y]
        return p.r > 200 && p.g < 60 && p.b < 60
    }
}

@MainActor
@Suite("Render thread", .isolatedTransactions)
struct RenderThreadTests {
    @Test("a host rendering on its own thread gives the same pixels as one on the main thread; flush() returns with the frame on the target")
    func samePixels() throws {
        func build() -> (Layer, Layer) {
            let root = rootLayer()
            let a = solid(Rect(x: 20, y: 20, width: 80, height: 60), .red)
            let b = solid(Rect(x: 60, y: 50, width: 90, height: 90), Color(red: 0, green: 0, blue: 1, alpha: 0.5))
            b.transform = Transform3D(rotationAngle: 0.3, x: 0, y: 0, z: 1)
            root.addSublayer(a)
            root.addSublayer(b)
            return (root, a)
        }
        try Transaction.$taskDisablesActions.withValue(true) {
            let device = try GPUDevice()
            let (rootA, movingA) = build()
            let (rootB, movingB) = build()
            let targetA = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
            let deviceB = try GPUDevice()
            let targetB = try OffscreenTarget(device: deviceB, size: Size(width: 200, height: 200))
            let main = LayerTreeHost(rootLayer: rootA, target: targetA, background: .white)
            let threaded = LayerTreeHost(rootLayer: rootB, target: targetB, background: .white, rendersOnThread: true)
            defer { main.detach(); threaded.detach() }
            let thread = try #require(threaded.renderThread)
            for step in 0..<5 {
                for l in [movingA, movingB] {
                    l.position = Point(x: 60 + Double(step) * 17, y: 50 + Double(step) * 9)
                    l.opacity = 1 - Double(step) * 0.15
                }
                try Transaction.flush()
                let a = try targetA.readPixels()
                let b = try thread.perform { try targetB.readPixels() }
                let d = a.difference(from: b)
                #expect(d.differing == 0, "step \(step): \(d)")
                #expect(!threaded.lastFrame.skipped && threaded.lastFrame.drawCalls > 0, "\(threaded.lastFrame)")
            }
        }
    }

    @Test("the main thread blocked for 500 ms mid-animation: the render thread keeps compositing frames at the display-link rate, each showing the value at its media time")
    func animatesWhileMainIsBlocked() throws {
        MediaClock.set(nil)
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 40))
        let root = rootLayer(width: 200, height: 40)
        let square = solid(Rect(x: 0, y: 10, width: 20, height: 20), .red)
        square.anchorPoint = Point(x: 0, y: 0)
        square.position = Point(x: 0, y: 10)
        root.addSublayer(square)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: true)
        defer { host.detach() }
        let thread = try #require(host.renderThread)
        try Transaction.flush()

        let samples = Locked<[(time: Double, edge: Int?)]>([])
        thread.frameObserver = { info in
            guard !info.requested, let image = try? info.target.readPixels() else { return }
            samples.withLock { $0.append((info.mediaTime, redEdge(image, row: 20))) }
        }
        var a = BasicAnimation(keyPath: "position.x")
        a.fromValue = .number(0)
        a.toValue = .number(150)
        a.duration = 2
        a.timingFunction = .linear
        let begin = square.convertTime(MediaClock.now(), from: nil)
        a.beginTime = begin
        square.add(a, forKey: "x")
        try Transaction.flush()
        let framesBefore = thread.framesRendered
        // The main thread is busy: no turn, no commit.
        usleep(500_000)
        let framesDuring = thread.framesRendered - framesBefore
        let recorded = samples.withLock { $0 }
        // 60 frames a second for half a second: about 30 (llvmpipe keeps up with a 200×40 target).
        #expect(framesDuring >= 20, "\(framesDuring) frames while the main thread was blocked")
        var worst = 0.0
        for s in recorded {
            guard let edge = s.edge else { Issue.record("a frame without the square at \(s.time)"); continue }
            let expected = min(150, max(0, (s.time - begin) / 2 * 150))
            worst = max(worst, abs(Double(edge) - expected))
        }
        #expect(worst <= 1.0, "largest distance from the value at the frame's time: \(worst) px over \(recorded.count) frames")
        #expect(thread.isAnimating)
        thread.frameObserver = nil
    }

    @Test("the frame clock stops when the last animation ends: no frames after it")
    func clockStops() throws {
        MediaClock.set(nil)
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        let root = rootLayer(width: 64, height: 64)
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        root.addSublayer(l)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: true)
        defer { host.detach() }
        let thread = try #require(host.renderThread)
        try Transaction.flush()
        var a = BasicAnimation(keyPath: "opacity")
        a.fromValue = .number(0)
        a.duration = 0.15
        l.add(a, forKey: "o")
        try Transaction.flush()
        usleep(400_000)
        #expect(!thread.isAnimating)
        let frames = thread.framesRendered
        #expect(frames >= 4, "\(frames) frames for a 0.15 s animation")
        usleep(200_000)
        #expect(thread.framesRendered == frames, "idle frames after the end")
    }

    @Test("a host's own render thread drives it (renderDriver .external): the device and target made there, serviceFrame() once per frame applies the commits and composites; flush() waits for it")
    func externalDriver() throws {
        // The host program's render thread: its GL device and target, and its frame loop.
        final class HostRenderThread: @unchecked Sendable {
            let ready = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            let state = Locked<(device: GPUDevice?, target: OffscreenTarget?, lamina: RenderThread?, running: Bool, frames: Int)>(
                (nil, nil, nil, true, 0))
            func start() {
                Thread { [self] in
                    do {
                        let device = try GPUDevice()
                        let target = try OffscreenTarget(device: device, size: Size(width: 100, height: 100))
                        state.withLock { $0.device = device; $0.target = target }
                    } catch {}
                    ready.signal()
                    while true {
                        let (lamina, running) = state.withLock { ($0.lamina, $0.running) }
                        guard running || (lamina.map { !$0.hasStopped } ?? false) else { break }
                        lamina?.serviceFrame()      // the host's frame: Lamina's part of it
                        state.withLock { $0.frames += 1 }
                        usleep(1000)
                    }
                    let (device, target) = state.withLock { ($0.device, $0.target) }
                    target?.release()
                    device?.close()
                    done.signal()
                }.start()
            }
        }
        let hostThread = HostRenderThread()
        hostThread.start()
        hostThread.ready.wait()
        let (device, target) = hostThread.state.withLock { ($0.device, $0.target) }
        let target_ = try #require(target)
        _ = try #require(device)
        try Transaction.$taskDisablesActions.withValue(true) {
            let root = rootLayer(width: 100, height: 100)
            let l = solid(Rect(x: 10, y: 10, width: 30, height: 30), .red)
            root.addSublayer(l)
            let host = LayerTreeHost(rootLayer: root, target: target_, background: .white, rendersOnThread: true,
                                     renderDriver: .external)
            let lamina = try #require(host.renderThread)
            hostThread.state.withLock { $0.lamina = lamina }
            try Transaction.flush()
            var image = try lamina.perform { try target_.readPixels() }
            #expect(image[20, 20] == red && image[60, 60] == white)
            l.position = Point(x: 70, y: 70)
            l.backgroundColor = .blue
            try Transaction.flush()
            image = try lamina.perform { try target_.readPixels() }
            #expect(image[20, 20] == white && image[70, 70] == blue)
            #expect(hostThread.state.withLock { $0.frames } > 0)
            host.detach()
            #expect(lamina.hasStopped)
        }
        hostThread.state.withLock { $0.running = false }
        hostThread.done.wait()
    }

    @Test("a context lost under the render thread: the frame that finds it recovers (a new context, a new snapshot, every content uploaded again) and shows the tree as it is")
    func contextLoss() throws {
        try Transaction.$taskDisablesActions.withValue(true) {
            let device = try GPUDevice()
            let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
            let root = rootLayer(width: 64, height: 64)
            let l = solid(Rect(x: 0, y: 0, width: 30, height: 30), .red)
            l.contents = .image(ContentImage(RGBAImage(width: 8, height: 8, fill: RGBAPixel(r: 0, g: 0, b: 255, a: 255))))
            let m = solid(Rect(x: 40, y: 40, width: 10, height: 10), .red)
            root.addSublayer(l)
            root.addSublayer(m)
            let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: true)
            defer { host.detach() }
            let thread = try #require(host.renderThread)
            try Transaction.flush()
            try thread.perform { device.simulateContextLoss() }
            m.backgroundColor = .green
            try Transaction.flush()
            #expect(host.lastFrame.recoveredFromContextLoss)
            let image = try thread.perform { try target.readPixels() }
            #expect(image[10, 10] == blue && image[45, 45] == green && image[60, 5] == white)
        }
    }

    @Test("a host dropped without detach() stops its render thread and frees what it made")
    func droppedHostStopsThread() throws {
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 32, height: 32))
        let baseline = device.liveObjectCounts.total
        weak var weakThread: RenderThread?
        do {
            let root = rootLayer(width: 32, height: 32)
            let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
            l.contents = .image(ContentImage(RGBAImage(width: 4, height: 4, fill: RGBAPixel(r: 0, g: 0, b: 255, a: 255))))
            root.addSublayer(l)
            let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: true)
            try Transaction.flush()
            weakThread = host.renderThread
            #expect(weakThread != nil)
        }
        // The thread has stopped (its GPU objects freed) when the host's deinit returns; its
        // last reference goes when the finished thread drops its closure, a moment later.
        for _ in 0..<200 where weakThread != nil { usleep(10_000) }
        #expect(weakThread == nil, "the thread stopped and was freed with its host")
        device.purgeCaches()
        // (The target's depth/stencil buffer went with the first frame: nothing in it clips.)
        #expect(target.ownStencilAttached == false)
        #expect(device.liveObjectCounts.total == baseline - 1, "\(device.liveObjectCounts)")
    }

    @Test("end-of-turn commits do not wait, and what a later perform reads includes every frame committed before it")
    func performSeesEarlierFrames() throws {
        try Transaction.$taskDisablesActions.withValue(true) {
            let device = try GPUDevice()
            let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
            let root = rootLayer(width: 64, height: 64)
            let l = solid(Rect(x: 0, y: 0, width: 16, height: 16), .red)
            root.addSublayer(l)
            let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: true)
            defer { host.detach() }
            let thread = try #require(host.renderThread)
            for step in 0..<20 {
                l.position = Point(x: 8 + Double(step * 2), y: 8 + Double(step))
                l.backgroundColor = step % 2 == 0 ? .green : .blue
                try Transaction.commitIfNeeded()   // the end of a turn: asks for a frame, does not wait
                try Transaction.commitIfNeeded()
                let image = try thread.perform { try target.readPixels() }
                let x = 8 + step * 2, y = 8 + step
                #expect(image[x, y] == (step % 2 == 0 ? green : blue), "step \(step)")
            }
        }
    }

    @Test("detaching stops the thread and frees every GL object it made")
    func detachFrees() throws {
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        let baseline = device.liveObjectCounts.total
        let root = rootLayer(width: 64, height: 64)
        let l = solid(Rect(x: 0, y: 0, width: 30, height: 30), .red)
        l.contents = .image(ContentImage(RGBAImage(width: 16, height: 16, fill: RGBAPixel(r: 0, g: 0, b: 255, a: 255))))
        root.addSublayer(l)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: true)
        try Transaction.flush()
        let thread = try #require(host.renderThread)
        let shown = try thread.perform { try target.readPixels() }
        #expect(shown[5, 5] == RGBAPixel(r: 0, g: 0, b: 255, a: 255))
        host.detach()
        device.purgeCaches()
        // (The target's depth/stencil buffer went with the first frame: nothing in it clips.)
        #expect(target.ownStencilAttached == false)
        #expect(device.liveObjectCounts.total == baseline - 1, "\(device.liveObjectCounts)")
    }
}
