import CEGL
import CGLES
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import Testing
import LaminaUI

/// The code blocks of docs/embedding.md, verbatim, each run against a host context made
/// by the test (a 640×400 window surface, for framebuffer 0). `hud` is a 20×20 red view.
// In the main transaction context (not an isolated one): the documented code runs
// `MainLoop.main`, which commits the main context at the end of each turn.
@MainActor
@Suite("docs/embedding.md")
struct EmbeddingDocTests {
    private static let screenSize = PixelSize(width: 640, height: 400)

    private func makeHUD() -> View {
        let hud = View(frame: Rect(x: 0, y: 0, width: 20, height: 20))
        hud.backgroundColor = .red
        return hud
    }

    @Test("every swift block of docs/embedding.md is the text of one of these tests")
    func blocksAreVerbatim() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/embedding.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let normalizedSource = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
        let blocks = doc.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count == 10)
        for block in blocks {
            let normalized = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
            #expect(normalizedSource.contains(normalized), "docs/embedding.md block not found in the tests:\n\(block)")
        }
        // The README's embedding excerpt: its code lines (comments aside), in this order, in the first test.
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let excerpt = try #require(readme.components(separatedBy: "```swift\n").first { $0.hasPrefix("let device = try GPUDevice(adopting") })
        let codeLines = excerpt.components(separatedBy: "```")[0].split(separator: "\n").compactMap { line -> String? in
            let code = line.components(separatedBy: "//")[0].trimmingCharacters(in: .whitespaces)
            return code.isEmpty ? nil : code
        }
        #expect(codeLines.count == 6)
        var position = normalizedSource.startIndex
        for line in codeLines {
            guard let found = normalizedSource.range(of: line, range: position..<normalizedSource.endIndex) else {
                Issue.record("README line not found (in order) in the tests: \(line)")
                break
            }
            position = found.upperBound
        }
    }

    @Test("adopt, every frame, into a panel of framebuffer 0")
    func adoptEveryFrame() throws {
        try Transaction.flush()
        let host = try TestHost(surface: EmbeddingDocTests.screenSize)
        defer { host.destroy() }
        let hud = makeHUD()
        host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, 1.0 / 3, 1), size: EmbeddingDocTests.screenSize)
        let device = try GPUDevice(adopting: .current)
        let screen = try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: PixelSize(width: 640, height: 400),
                                                   region: PixelRect(x: 24, y: 24, width: 280, height: 196))
        let window = Window(target: screen, background: nil)        // nil: over the host's pixels
        window.host.compositesEveryFrame = true
        window.addSubview(hud)
        // Each frame, after the host drew its scene, before it swaps:
        try MainLoop.main.runFrame()
        for frame in 0..<3 {
            if frame > 0 {   // the host's next frames
                host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, Float(frame + 1) / 3, 1), size: EmbeddingDocTests.screenSize)
                try MainLoop.main.runFrame()
            }
            let image = host.read(0, size: EmbeddingDocTests.screenSize)
            #expect(image[30, 30] == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "frame \(frame)")
            #expect(image[100, 100].b == UInt8((Float(frame + 1) / 3 * 255).rounded()))
        }
        window.host.detach()
        device.close()
    }

    @Test("frame requests: a change asks for one frame, the host's frame commits it with its time, idle asks nothing")
    func frameRequests() throws {
        try Transaction.flush()
        let host = try TestHost(surface: EmbeddingDocTests.screenSize)
        defer { host.destroy() }
        let hud = makeHUD()
        host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, 1, 1), size: EmbeddingDocTests.screenSize)
        let device = try GPUDevice(adopting: .current)
        let screen = try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: PixelSize(width: 640, height: 400))
        let window = Window(target: screen, background: nil)
        window.addSubview(hud)
        let context = window.host.context
        defer { context.frameRequestHandler = nil; MediaClock.set(nil) }
        var frameWanted = false
        context.frameRequestHandler = { frameWanted = true }   // gtk_gl_area_queue_render(area), say
        // … in the toolkit's frame (its render signal, with its frame time):
        if frameWanted {
            frameWanted = false
            MediaClock.set(MonotonicClock.now())   // the toolkit's presentation time
            try context.flush()
        }
        // (The new window was wanted at once: the first frame composited it.)
        #expect(window.host.frameCount == 1 && !context.wantsFrame && !frameWanted)
        #expect(host.read(0, size: EmbeddingDocTests.screenSize)[10, 10] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        func toolkitFrame() throws {   // the block's second half, as each later frame runs it
            if frameWanted { frameWanted = false; MediaClock.set(MonotonicClock.now()); try context.flush() }
        }
        try toolkitFrame()                                // idle: no request, no commit
        #expect(window.host.frameCount == 1 && !frameWanted)
        hud.backgroundColor = .green                      // a change: one request, shown in the next frame
        #expect(frameWanted && context.wantsFrame)
        try toolkitFrame()
        #expect(window.host.frameCount == 2 && !frameWanted)
        #expect(host.read(0, size: EmbeddingDocTests.screenSize)[10, 10] == RGBAPixel(r: 0, g: 255, b: 0, a: 255))
        window.host.detach()
        device.close()
    }

    @Test("adopt, retained output presented each frame")
    func adoptRetained() throws {
        try Transaction.flush()
        let host = try TestHost(surface: EmbeddingDocTests.screenSize)
        defer { host.destroy() }
        let hud = makeHUD()
        host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, 1, 1), size: EmbeddingDocTests.screenSize)
        let device = try GPUDevice(adopting: .current)
        let screen = try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: PixelSize(width: 640, height: 400))
        let window = Window(target: try OffscreenTarget(device: device, pixelSize: PixelSize(width: 280, height: 196)), background: .clear)
        window.addSubview(hud)
        // Each frame:
        try MainLoop.main.runFrame()                                 // composites only when the HUD changed
        try window.host.present(into: screen, in: Rect(x: 24, y: 24, width: 280, height: 196))   // one quad
        let image = host.read(0, size: EmbeddingDocTests.screenSize)
        #expect(image[30, 30] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        #expect(image[100, 100] == RGBAPixel(r: 0, g: 0, b: 255, a: 255))
        window.host.detach()
        device.close()
    }

    @Test("share: the host samples Lamina's texture")
    func share() throws {
        try Transaction.flush()
        let host = try TestHost()
        defer { host.destroy() }
        let hud = makeHUD()
        let device = try GPUDevice(sharingWith: .current)            // Lamina's own context, the host's share group
        let window = Window(target: try OffscreenTarget(device: device, pixelSize: PixelSize(width: 280, height: 196)), background: .clear)
        window.addSubview(hud)
        try MainLoop.main.runFrame()
        let name = window.host.target.texture!.glName                // a GL_TEXTURE_2D, premultiplied, row 0 on top
        let seen = host.read(texture: name, size: PixelSize(width: 280, height: 196))
        #expect(seen[5, 5] == RGBAPixel(r: 255, g: 0, b: 0, a: 255) && seen[100, 100] == RGBAPixel(r: 0, g: 0, b: 0, a: 0))
        window.host.detach()
        device.close()
    }

    @Test("own everything")
    func own() throws {
        try Transaction.flush()
        let hud = makeHUD()
        let device = try GPUDevice()
        let window = Window(target: try OffscreenTarget(device: device, pixelSize: PixelSize(width: 280, height: 196)))
        window.addSubview(hud)
        try window.compositeNow()
        let pixels = try window.host.target.readPixels()             // RGBA, premultiplied, top row first
        #expect(pixels[5, 5] == RGBAPixel(r: 255, g: 0, b: 0, a: 255) && pixels[100, 100] == RGBAPixel(r: 255, g: 255, b: 255, a: 255))
        window.host.detach()
        device.close()
    }

    @Test("SDL2: adopt SDL's context, composite over its scene each frame")
    func toolkitSDL2() throws {
        try Transaction.flush()
        let host = try TestHost(surface: EmbeddingDocTests.screenSize)
        defer { host.destroy() }
        let hud = makeHUD()
        let drawableSize = EmbeddingDocTests.screenSize
        func drawScene() { host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, 1, 1), size: EmbeddingDocTests.screenSize) }
        var swaps = 0
        func swap() { swaps += 1 }
        // After SDL_GL_CreateContext and SDL_GL_MakeCurrent:
        let device = try GPUDevice(adopting: .current)
        let window = Window(target: try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: drawableSize),
                            background: nil)
        window.host.compositesEveryFrame = true
        window.addSubview(hud)
        // Each frame: SDL's events to window.send(…) (docs/views.md, "An SDL2 host"), then
        drawScene()
        try MainLoop.main.runFrame()
        swap()                                                       // SDL_GL_SwapWindow
        let image = host.read(0, size: EmbeddingDocTests.screenSize)
        #expect(image[10, 10] == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "the HUD, over the scene")
        #expect(image[100, 100] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "the host's scene, kept")
        #expect(swaps == 1)
        window.host.detach()
        device.close()
    }

    @Test("GLFW: adopt GLFW's context, composite over its scene each frame")
    func toolkitGLFW() throws {
        try Transaction.flush()
        let host = try TestHost(surface: EmbeddingDocTests.screenSize)
        defer { host.destroy() }
        let hud = makeHUD()
        let framebufferSize = EmbeddingDocTests.screenSize
        func drawScene() { host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, 1, 1), size: EmbeddingDocTests.screenSize) }
        var swaps = 0
        func swap() { swaps += 1 }
        // After glfwMakeContextCurrent (the size from glfwGetFramebufferSize):
        let device = try GPUDevice(adopting: .current)
        let window = Window(target: try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: framebufferSize),
                            background: nil)
        window.host.compositesEveryFrame = true
        window.addSubview(hud)
        // Each frame:
        drawScene()
        try MainLoop.main.runFrame()
        swap()                                                       // glfwSwapBuffers, glfwPollEvents
        let image = host.read(0, size: EmbeddingDocTests.screenSize)
        #expect(image[10, 10] == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "the HUD, over the scene")
        #expect(image[100, 100] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "the host's scene, kept")
        #expect(swaps == 1)
        window.host.detach()
        device.close()
    }

    @Test("GTK 4: adopt in realize, frame requests queue renders, render composites at GDK's frame time")
    func toolkitGTK() throws {
        try Transaction.flush()
        let host = try TestHost(surface: EmbeddingDocTests.screenSize)
        defer { host.destroy() }
        let hud = makeHUD()
        let framebuffer: UInt32 = 0, pixelSize = EmbeddingDocTests.screenSize, frameTime = MonotonicClock.now()
        var queued = 0
        let queueRender: @MainActor () -> Void = { queued += 1 }
        defer { TransactionContext.current.frameRequestHandler = nil; MediaClock.set(nil) }
        func drawScene() { host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, 1, 1), size: EmbeddingDocTests.screenSize) }
        // ::realize (the area's context current):
        let device = try GPUDevice(adopting: .current)
        TransactionContext.current.frameRequestHandler = queueRender   // an idle callback calling gtk_gl_area_queue_render
        // ::render (framebuffer: GL_DRAW_FRAMEBUFFER_BINDING; keep the window while it and the size stay):
        let window = Window(target: try ExternalFramebufferTarget(device: device, framebuffer: framebuffer, pixelSize: pixelSize),
                            background: nil)
        window.host.compositesEveryFrame = true
        window.addSubview(hud)
        drawScene()
        MediaClock.set(frameTime)                                    // gdk_frame_clock_get_frame_time / 1e6
        try MainLoop.main.runFrame()
        let image = host.read(0, size: EmbeddingDocTests.screenSize)
        #expect(image[10, 10] == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "the HUD, over the scene")
        #expect(image[100, 100] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "the host's scene, kept")
        #expect(queued >= 1, "the new window asked for a frame")
        window.host.detach()
        device.close()
    }

    @Test("Qt 6: adopt in initializeGL, frame requests ask requestUpdate, paintGL composites")
    func toolkitQt() throws {
        try Transaction.flush()
        let host = try TestHost(surface: EmbeddingDocTests.screenSize)
        defer { host.destroy() }
        let hud = makeHUD()
        let framebuffer: UInt32 = 0, pixelSize = EmbeddingDocTests.screenSize
        var updates = 0
        let requestUpdate: @MainActor () -> Void = { updates += 1 }
        defer { TransactionContext.current.frameRequestHandler = nil }
        func drawScene() { host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, 1, 1), size: EmbeddingDocTests.screenSize) }
        // initializeGL:
        let device = try GPUDevice(adopting: .current)
        TransactionContext.current.frameRequestHandler = requestUpdate   // QTimer::singleShot(0, …requestUpdate())
        // paintGL (framebuffer: defaultFramebufferObject(); a new window when it or the size changes):
        let window = Window(target: try ExternalFramebufferTarget(device: device, framebuffer: framebuffer, pixelSize: pixelSize),
                            background: nil)
        window.host.compositesEveryFrame = true
        window.addSubview(hud)
        drawScene()
        try MainLoop.main.runFrame()
        let image = host.read(0, size: EmbeddingDocTests.screenSize)
        #expect(image[10, 10] == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "the HUD, over the scene")
        #expect(image[100, 100] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "the host's scene, kept")
        #expect(updates >= 1, "the new window asked for a frame")
        window.host.detach()
        device.close()
    }

    @Test("a raw EGL or GLX host: adopt, composite over the scene, swap")
    func toolkitRaw() throws {
        try Transaction.flush()
        let host = try TestHost(surface: EmbeddingDocTests.screenSize)
        defer { host.destroy() }
        let hud = makeHUD()
        let pixelSize = EmbeddingDocTests.screenSize
        func drawScene() { host.fill(0, PixelRect(size: EmbeddingDocTests.screenSize), (0, 0, 1, 1), size: EmbeddingDocTests.screenSize) }
        var swaps = 0
        func swap() { swaps += 1 }
        let device = try GPUDevice(adopting: .current)               // eglMakeCurrent or glXMakeCurrent done
        let window = Window(target: try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: pixelSize),
                            background: nil)
        window.host.compositesEveryFrame = true
        window.addSubview(hud)
        drawScene()
        try MainLoop.main.runFrame()
        swap()                                                       // eglSwapBuffers or glXSwapBuffers
        let image = host.read(0, size: EmbeddingDocTests.screenSize)
        #expect(image[10, 10] == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "the HUD, over the scene")
        #expect(image[100, 100] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "the host's scene, kept")
        #expect(swaps == 1)
        window.host.detach()
        device.close()
    }
}
