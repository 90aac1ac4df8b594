import CEGL
import CGLES
import Foundation
import LaminaCore
import LaminaGeometry
@_spi(Testing) import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaUI
import LaminaTestSupport

private func px(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) -> RGBAPixel { RGBAPixel(r: r, g: g, b: b, a: a) }

/// What is current on this thread (EGL), to compare before and after a call.
private struct Binding: Equatable, CustomStringConvertible {
    var api: EGLenum
    var display: EGLDisplay?
    var context: EGLContext?
    var draw: EGLSurface?
    var read: EGLSurface?
    static func now() -> Binding {
        let api = eglQueryAPI()
        return Binding(api: api, display: eglGetCurrentDisplay(), context: eglGetCurrentContext(),
                       draw: eglGetCurrentSurface(EGL_DRAW), read: eglGetCurrentSurface(EGL_READ))
    }
    var description: String { "api 0x\(String(api, radix: 16)) display \(String(describing: display)) context \(String(describing: context)) draw \(String(describing: draw)) read \(String(describing: read))" }
}

/// A view that draws: blue left half, translucent black right half (an upload per draw).
@MainActor
private final class Halves: View {
    override func draw(_ rect: Rect) {
        let c = currentGraphicsContext()!
        c.setFillColor(.blue)
        c.fill(Rect(x: 0, y: 0, width: bounds.width / 2, height: bounds.height))
        c.setFillColor(Color(red: 0, green: 0, blue: 0, alpha: 0.5))
        c.fill(Rect(x: bounds.width / 2, y: 0, width: bounds.width / 2, height: bounds.height))
    }
}

/// A 4×4 image of four coloured quadrants (red, green / blue, white).
private func quadrants(_ n: Int) -> ContentImage {
    var image = RGBAImage(width: n, height: n)
    for y in 0..<n { for x in 0..<n {
        image[x, y] = y < n / 2 ? (x < n / 2 ? px(255, 0, 0) : px(0, 255, 0)) : (x < n / 2 ? px(0, 0, 255) : px(255, 255, 255))
    } }
    return ContentImage(image)
}

/// A scene that exercises every kind of GL work Lamina does: a rounded stencil clip, a
/// drawn (uploaded) view with translucency, a magnified image with linear filtering, a
/// nine-slice image and a group-opacity subtree (an offscreen pass). 128×64 points.
@MainActor
private func buildScene(in window: Window) {
    let clip = View(frame: Rect(x: 4, y: 4, width: 40, height: 24))
    clip.backgroundColor = .red
    clip.clipsToBounds = true
    clip.layer.cornerRadius = 8
    let inner = View(frame: Rect(x: 10, y: 6, width: 60, height: 60))
    inner.backgroundColor = .green
    clip.addSubview(inner)
    window.addSubview(clip)

    let drawn = Halves(frame: Rect(x: 48, y: 4, width: 40, height: 24))
    drawn.isOpaque = false
    window.addSubview(drawn)

    let image = View(frame: Rect(x: 4, y: 32, width: 28, height: 28))
    image.layer.contents = .image(quadrants(4))
    window.addSubview(image)

    let group = View(frame: Rect(x: 36, y: 32, width: 50, height: 28))
    group.alpha = 0.5
    let a = View(frame: Rect(x: 0, y: 0, width: 30, height: 28)); a.backgroundColor = .yellow
    let b = View(frame: Rect(x: 20, y: 0, width: 30, height: 28)); b.backgroundColor = .cyan
    group.addSubview(a); group.addSubview(b)
    window.addSubview(group)

    let nine = View(frame: Rect(x: 92, y: 4, width: 32, height: 56))
    nine.layer.contents = .image(quadrants(8))
    nine.layer.contentsCenter = Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
    window.addSubview(nine)
}

private let sceneSize = PixelSize(width: 128, height: 64)

@MainActor
@Suite("Embedding: who owns the context", .isolatedTransactions)
struct ContextOwnershipTests {
    @Test("adopted context (ES 3, desktop 3.3 core, 4.5 compatibility): Lamina draws into the host's own framebuffer (no sharing), over the host's pixels, leaves its state, and close() leaves the host's display and context working",
          arguments: TestHost.API.allCases)
    func adopt(_ api: TestHost.API) throws {
        try Transaction.flush()
        let host = try TestHost(api: api)
        defer { host.destroy() }
        let fb = host.makeFramebuffer(sceneSize)
        host.fill(fb.fbo, PixelRect(size: sceneSize), (0, 0, 1, 1), size: sceneSize)          // the host's blue frame
        host.fill(fb.fbo, PixelRect(x: 100, y: 0, width: 28, height: 8), (1, 1, 0, 1), size: sceneSize)   // and a yellow strip
        let before = hostStateFingerprint()

        let device = try GPUDevice(adopting: .current)
        #expect(device.ownership == .adopt && device.backend == .host)
        #expect(device.capabilities.isDesktopGL == api.isDesktop, "\(device.capabilities.glVersion)")
        let target = try ExternalFramebufferTarget(device: device, framebuffer: fb.fbo, pixelSize: sceneSize)
        let window = Window(target: target, background: nil)
        let red = View(frame: Rect(x: 10, y: 10, width: 20, height: 20))
        red.backgroundColor = .red
        window.addSubview(red)
        try window.compositeNow()
        #expect(host.isCurrent)
        #expect(changedState(before, hostStateFingerprint()).isEmpty, "\(changedState(before, hostStateFingerprint()))")

        let image = host.read(fb.fbo, size: sceneSize)
        #expect(image[20, 20] == px(255, 0, 0))          // Lamina's view
        #expect(image[60, 30] == px(0, 0, 255))          // the host's frame, where no view is
        #expect(image[110, 60] == px(255, 255, 0))       // the host's strip (bottom rows in GL = bottom of the picture)

        // close(): Lamina's objects are gone, the host's context and display still work.
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 2, height: 2))
        let name = texture.glName
        window.host.detach()
        device.close()
        #expect(device.liveObjectCounts.total == 0)
        #expect(host.isCurrent)
        #expect(glIsTexture(name) == GLboolean(GL_FALSE))
        eglMakeCurrent(host.display, nil, nil, nil)
        host.makeCurrent()                                 // would fail after eglTerminate (EGL_BAD_DISPLAY)
        host.fill(fb.fbo, PixelRect(size: sceneSize), (0, 1, 0, 1), size: sceneSize)
        #expect(host.read(fb.fbo, size: sceneSize)[5, 5] == px(0, 255, 0))
        #expect(glGetError() == GLenum(GL_NO_ERROR))
    }

    @Test("own context: every public entry point that touches GL gives the caller back its current context, surfaces and client API")
    func ownRestores() throws {
        try Transaction.flush()
        let host = try TestHost(surface: PixelSize(width: 16, height: 16))
        defer { host.destroy() }
        let caller = Binding.now()
        #expect(caller.context == host.context && caller.draw != nil)
        var failures: [String] = []
        func check(_ what: String, _ body: () throws -> Void) rethrows {
            try body()
            let now = Binding.now()
            if now != caller { failures.append("\(what): \(now) instead of \(caller)") }
        }
        var device: GPUDevice!
        try check("GPUDevice()") { device = try GPUDevice() }
        var texture: Texture!
        try check("makeTexture") { texture = try device.makeTexture(pixelSize: PixelSize(width: 4, height: 4), pixels: RGBAImage(width: 4, height: 4)) }
        try check("Texture.upload") { try texture.upload(RGBAImage(width: 4, height: 4)) }
        try check("program") { _ = try device.program(vertex: "quad.vert", fragment: "solid.frag") }
        try check("makeProgram") {
            _ = try device.makeProgram(vertexSource: try Shaders.source(named: "quad.vert"), fragmentSource: try Shaders.source(named: "solid.frag")).release()
        }
        var target: OffscreenTarget!
        try check("OffscreenTarget") { target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 8, height: 8)) }
        try check("render pass") {
            let pass = try device.beginRenderPass(on: target, clear: .white)
            try pass.fill(Rect(x: 0, y: 0, width: 4, height: 4), color: .red)
            try pass.pushClip(Rect(x: 0, y: 0, width: 2, height: 2))
            try pass.draw(texture, in: Rect(x: 0, y: 0, width: 8, height: 8))
            try pass.popClip(Rect(x: 0, y: 0, width: 2, height: 2))
            pass.submit()
        }
        try check("composite") { try target.composite(texture, in: Rect(x: 4, y: 4, width: 4, height: 4)) }
        try check("readPixels") { _ = try target.readPixels() }
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 8, height: 8)
        root.backgroundColor = .blue
        root.opacity = 0.5
        root.addSublayer(Layer())
        root.sublayers[0].frame = Rect(x: 0, y: 0, width: 4, height: 4)
        root.sublayers[0].backgroundColor = .green
        try check("Compositor.render") { _ = try LayerRenderer(device: device).render(root, to: target) }
        try check("window commit") {
            let window = Window(target: try OffscreenTarget(device: device, pixelSize: PixelSize(width: 16, height: 16)))
            window.addSubview(Halves(frame: Rect(x: 0, y: 0, width: 8, height: 8)))
            try window.compositeNow()
            window.host.detach()
        }
        try check("withContext") { try device.withContext {} }
        check("reportGLErrors") { device.reportGLErrors("test") }
        check("Texture.release") { texture.release() }
        check("collectGarbage") {
            _ = try? device.makeTexture(pixelSize: PixelSize(width: 2, height: 2))   // dropped unreleased
            device.collectGarbage()
        }
        check("purgeCaches") { device.purgeCaches() }
        check("RenderTarget.release") { target.release() }
        check("close") { device.close() }
        #expect(failures.isEmpty, "\(failures)")

        // With nothing current, nothing is left current.
        eglMakeCurrent(host.display, nil, nil, nil)
        let other = try GPUDevice()
        let t = try OffscreenTarget(device: other, pixelSize: PixelSize(width: 4, height: 4))
        let pass = try other.beginRenderPass(on: t, clear: .red)
        pass.submit()
        #expect(try t.readPixels()[1, 1] == px(255, 0, 0))
        #expect(eglGetCurrentContext() == nil)
        other.close()
        host.makeCurrent()
    }

    @Test("calls of two devices nested in each other each run on their own context, and the caller's comes back")
    func nestedDevices() throws {
        let host = try TestHost()
        defer { host.destroy() }
        let a = try GPUDevice(), b = try GPUDevice()
        defer { a.close(); b.close() }
        let ta = try OffscreenTarget(device: a, pixelSize: PixelSize(width: 4, height: 4))
        let tb = try OffscreenTarget(device: b, pixelSize: PixelSize(width: 4, height: 4))
        try a.withContext {
            try b.withContext {
                let pa = try a.beginRenderPass(on: ta, clear: .red)     // a's pass inside b's scope
                pa.submit()
                let pb = try b.beginRenderPass(on: tb, clear: .green)
                pb.submit()
                #expect(try ta.readPixels()[1, 1] == px(255, 0, 0))
            }
            #expect(try ta.readPixels()[1, 1] == px(255, 0, 0))
            #expect(try tb.readPixels()[1, 1] == px(0, 255, 0))
        }
        #expect(eglGetCurrentContext() == host.context)
    }

    @Test("passes of two devices may end in any order: each draws on its own context, the host's state and context come back")
    func passesOutOfOrder() throws {
        let h = try AdoptedHost(framebuffer: PixelSize(width: 8, height: 8))
        defer { h.close() }
        h.fill((0, 0, 1, 1))
        let before = hostStateFingerprint()
        let own = try GPUDevice()
        defer { own.close() }
        let ownTarget = try OffscreenTarget(device: own, pixelSize: PixelSize(width: 8, height: 8))
        let hostTarget = try h.target()
        let pa = try h.device.beginRenderPass(on: hostTarget, clear: nil)   // adopted: the host's framebuffer
        let pb = try own.beginRenderPass(on: ownTarget, clear: .green)
        try pa.fill(Rect(x: 0, y: 0, width: 4, height: 8), color: .red)      // a's draw while b's pass is open
        pa.submit()                                                         // a ends first
        try pb.fill(Rect(x: 4, y: 0, width: 4, height: 8), color: .white)
        pb.submit()
        #expect(eglGetCurrentContext() == h.host.context)
        #expect(changedState(before, hostStateFingerprint()).isEmpty, "\(changedState(before, hostStateFingerprint()))")
        let image = h.read()
        #expect(image[1, 1] == px(255, 0, 0) && image[6, 1] == px(0, 0, 255))
        let other = try ownTarget.readPixels()
        #expect(other[1, 1] == px(0, 255, 0) && other[6, 1] == px(255, 255, 255))
    }

    @Test("an adopted context re-entered inside another device's call keeps the window surface the host has current, not the one it was adopted with")
    func reentrySurface() throws {
        try Transaction.flush()
        let size = PixelSize(width: 16, height: 16)
        let host = try TestHost(surface: size)
        defer { host.destroy() }
        let device = try GPUDevice(adopting: .current)                     // adopted with surface 1
        defer { device.close() }
        let second = try host.makeSurface(size)
        host.makeCurrent(surface: second)                                   // the host now draws to surface 2
        host.fill(0, PixelRect(size: size), (0, 0, 1, 1), size: size)
        let screen = try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: size)
        let own = try GPUDevice()
        defer { own.close() }
        try device.withContext {
            try own.withContext {
                let pass = try device.beginRenderPass(on: screen, clear: .red)
                pass.submit()
            }
        }
        #expect(eglGetCurrentSurface(EGL_DRAW) == second)
        #expect(host.read(0, size: size)[4, 4] == px(255, 0, 0), "drawn into the surface the host had current")
    }

    @Test("after the host destroyed its context, releasing, collecting and closing an adopted device neither crash nor touch another context")
    func hostGoneFirst() throws {
        let host = try TestHost()
        let device = try GPUDevice(adopting: .current)
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 2, height: 2))
        _ = try device.makeTexture(pixelSize: PixelSize(width: 2, height: 2))   // dropped: queued
        host.destroy()
        texture.release()
        device.collectGarbage()
        device.purgeCaches()
        #expect(device.reportGLErrors("nothing") == 0)
        #expect(throws: GPUError.self) { _ = try device.makeTexture(pixelSize: PixelSize(width: 2, height: 2)) }
        device.close()
        #expect(device.isClosed && device.liveObjectCounts[.texture] == 0)
        #expect(eglGetCurrentContext() == nil)
    }

    @Test("own context: a caller with a desktop OpenGL context current (EGL_OPENGL_API) gets both its API and its context back")
    func desktopCaller() throws {
        let host = try TestHost()
        defer { host.destroy() }
        eglBindAPI(EGLenum(EGL_OPENGL_API))
        var config: EGLConfig?
        var n: EGLint = 0
        eglChooseConfig(host.display, [EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE], &config, 1, &n)
        let desktop = try #require(eglCreateContext(host.display, config, nil, [EGL_NONE]), "Mesa offers desktop GL contexts")
        defer { eglDestroyContext(host.display, desktop) }
        #expect(eglMakeCurrent(host.display, nil, nil, desktop) == EGL_TRUE)
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 4, height: 4))
        let pass = try device.beginRenderPass(on: target, clear: .green)
        pass.submit()
        #expect(try target.readPixels()[0, 0] == px(0, 255, 0))
        device.close()
        #expect(eglQueryAPI() == EGLenum(EGL_OPENGL_API))
        #expect(eglGetCurrentContext() == desktop)
        // The current context is desktop GL 3.0 compatibility (what Mesa gives without
        // attributes is newer): adopting it works, Lamina's own came and went.
        let adopted = try GPUDevice(adopting: .current)
        #expect(adopted.capabilities.isDesktopGL)
        adopted.close()
        #expect(eglGetCurrentContext() == desktop)
        eglMakeCurrent(host.display, nil, nil, nil)
        eglBindAPI(EGLenum(EGL_OPENGL_ES_API))
        host.makeCurrent()
    }

    @Test("shared context: Lamina's own context in the host's share group; the host reads Lamina's output texture by its GL name; close() destroys only Lamina's context")
    func share() throws {
        try Transaction.flush()
        let host = try TestHost()
        defer { host.destroy() }
        let device = try GPUDevice(sharingWith: .current)
        #expect(device.ownership == .share)
        #expect(host.isCurrent)
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 32, height: 16))
        let window = Window(target: target, background: .blue)
        let red = View(frame: Rect(x: 0, y: 0, width: 16, height: 16))
        red.backgroundColor = .red
        window.addSubview(red)
        try window.compositeNow()
        #expect(host.isCurrent)
        // The host attaches Lamina's texture to a framebuffer of its own (textures are shared).
        let name = try #require(target.texture?.glName)
        let seen = host.read(texture: name, size: PixelSize(width: 32, height: 16))
        #expect(seen[4, 4] == px(255, 0, 0) && seen[24, 4] == px(0, 0, 255))
        window.host.detach()
        device.close()
        #expect(host.isCurrent)
        #expect(glIsTexture(name) == GLboolean(GL_FALSE))   // deleted by close(), though the share group lives on
        let fb = host.makeFramebuffer(PixelSize(width: 4, height: 4))
        host.fill(fb.fbo, PixelRect(x: 0, y: 0, width: 4, height: 4), (1, 1, 1, 1), size: PixelSize(width: 4, height: 4))
        #expect(host.read(fb.fbo, size: PixelSize(width: 4, height: 4))[1, 1] == px(255, 255, 255))
        #expect(glGetError() == GLenum(GL_NO_ERROR))
    }

    @Test("framebuffer 0 is the adopted context's window surface; on Lamina's own context it is a clear error, as is a host framebuffer name")
    func framebufferZero() throws {
        try Transaction.flush()
        let size = PixelSize(width: 40, height: 24)
        let host = try TestHost(surface: size)
        defer { host.destroy() }
        host.fill(0, PixelRect(size: size), (0, 0, 1, 1), size: size)
        let device = try GPUDevice(adopting: .current)
        let target = try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: size)
        let window = Window(target: target, background: nil)
        let red = View(frame: Rect(x: 0, y: 0, width: 10, height: 8))
        red.backgroundColor = .red
        window.addSubview(red)
        try window.compositeNow()
        let image = host.read(0, size: size)
        #expect(image[2, 2] == px(255, 0, 0))            // top-left of the picture
        #expect(image[30, 20] == px(0, 0, 255))
        #expect(try target.readPixels()[2, 2] == px(255, 0, 0))
        #expect { _ = try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: PixelSize(width: 80, height: 24)) }
            throws: { "\($0)".contains("40×24 px") }
        window.host.detach()
        device.close()

        let own = try GPUDevice()
        #expect { _ = try ExternalFramebufferTarget(device: own, framebuffer: 0, pixelSize: size) }
            throws: { "\($0)".contains("framebuffer 0 is undefined") && "\($0)".contains("GPUDevice(adopting: .current)") }
        let fb = host.makeFramebuffer(PixelSize(width: 8, height: 8))
        #expect { _ = try ExternalFramebufferTarget(device: own, framebuffer: fb.fbo, pixelSize: PixelSize(width: 8, height: 8)) }
            throws: { "\($0)".contains("not an object of Lamina's own context") }
        own.close()
    }

    @Test("adopting with no current context says so, and how SDL and GLFW hosts get an EGL context")
    func noContext() throws {
        let host = try TestHost()
        defer { host.destroy() }
        eglMakeCurrent(host.display, nil, nil, nil)
        #expect { _ = try GPUDevice(adopting: .current) } throws: { error in
            "\(error)".contains("no EGL or GLX context is current") && "\(error)".contains("glfwMakeContextCurrent")
        }
        host.makeCurrent()
    }
}

/// A piece of GL state a host may leave behind.
enum HostileState: String, CaseIterable, Sendable {
    case reverseSubtractBlend, stencilMaskZero, colorMaskOff, scissorOn, depthTestNever, unpackSkipRows,
         unpackRowLength, unpackAlignment1, boundSampler, boundUnpackBuffer, pendingInvalidEnum,
         pendingInvalidValue, pendingInvalidOperation, rasterizerDiscard, cullEverything, activeTextureUnit3,
         activeQuery, transformFeedback, separateReadFramebuffer, deletedCurrentProgram,
         indexedDrawBufferState, drawBuffersNone,
         // Desktop OpenGL only (GTK's and Qt's contexts).
         framebufferSRGB, logicOpInvert, polygonModeLine, polygonSmooth, primitiveRestartIndex1, clipDistancesOn,
         multisampleOff, clipControlUpperLeft, swapBytes,
         // The compatibility profile only.
         alphaTestNever

    /// Whether a host of `api` can set this state.
    func applies(to api: TestHost.API) -> Bool {
        switch self {
        case .framebufferSRGB, .logicOpInvert, .polygonModeLine, .polygonSmooth, .primitiveRestartIndex1, .clipDistancesOn,
             .multisampleOff, .clipControlUpperLeft, .swapBytes: return api.isDesktop
        case .alphaTestNever: return api == .compatibility45
        default: return true
        }
    }

    /// Sets the state on the current (host's) context; `framebuffer` is the host's
    /// framebuffer Lamina will draw into.
    func apply(host: TestHost, framebuffer: GLuint) {
        switch self {
        case .reverseSubtractBlend:
            glEnable(GLenum(GL_BLEND)); glBlendEquation(GLenum(GL_FUNC_REVERSE_SUBTRACT)); glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE))
        case .stencilMaskZero: glStencilMask(0)
        case .colorMaskOff: glColorMask(0, 0, 0, 0)
        case .scissorOn: glEnable(GLenum(GL_SCISSOR_TEST)); glScissor(0, 0, 1, 1)
        case .depthTestNever: glEnable(GLenum(GL_DEPTH_TEST)); glDepthFunc(GLenum(GL_NEVER))
        case .unpackSkipRows: glPixelStorei(GLenum(GL_UNPACK_SKIP_ROWS), 3); glPixelStorei(GLenum(GL_UNPACK_SKIP_PIXELS), 2)
        case .unpackRowLength: glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 7)
        case .unpackAlignment1: glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1); glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        case .boundSampler:
            var s: GLuint = 0
            glGenSamplers(1, &s)
            glSamplerParameteri(s, GLenum(GL_TEXTURE_MAG_FILTER), GL_NEAREST)
            glSamplerParameteri(s, GLenum(GL_TEXTURE_MIN_FILTER), GL_NEAREST)
            glSamplerParameteri(s, GLenum(GL_TEXTURE_WRAP_S), GL_REPEAT)
            glBindSampler(0, s)
        case .boundUnpackBuffer:
            var b: GLuint = 0
            glGenBuffers(1, &b)
            glBindBuffer(GLenum(GL_PIXEL_UNPACK_BUFFER), b)
            glBufferData(GLenum(GL_PIXEL_UNPACK_BUFFER), 64, nil, GLenum(GL_STREAM_DRAW))
        case .pendingInvalidEnum: glEnable(0xDEAD)
        case .pendingInvalidValue: glLineWidth(-1)
        case .pendingInvalidOperation: glBindVertexArray(987_654)          // not a vertex array name
        case .rasterizerDiscard: glEnable(GLenum(GL_RASTERIZER_DISCARD))
        case .cullEverything: glEnable(GLenum(GL_CULL_FACE)); glCullFace(GLenum(GL_FRONT_AND_BACK))
        case .activeTextureUnit3: glActiveTexture(GLenum(GL_TEXTURE3))
        case .activeQuery:
            var q: GLuint = 0
            glGenQueries(1, &q)
            glBeginQuery(GLenum(GL_ANY_SAMPLES_PASSED), q)
        case .transformFeedback: host.beginTransformFeedback()
        case .separateReadFramebuffer:
            let other = host.makeFramebuffer(PixelSize(width: 4, height: 4))
            glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), other.fbo)
        case .deletedCurrentProgram:
            let p = host.makeSolidProgram()
            glUseProgram(p)
            glDeleteProgram(p)                                             // flagged; alive while current
        case .indexedDrawBufferState:
            let i = HostIndexedState.functions
            i.enable(GLenum(GL_BLEND), 1)
            i.colorMask(1, 0, 1, 0, 1)
            i.blendFunc(1, GLenum(GL_SRC_ALPHA), GLenum(GL_ONE), GLenum(GL_ZERO), GLenum(GL_DST_COLOR))
            i.blendEquation(1, GLenum(GL_FUNC_SUBTRACT), GLenum(GL_MAX))
        case .drawBuffersNone:
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
            glDrawBuffers(1, [GLenum(GL_NONE)])
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        case .framebufferSRGB: glEnable(GLenum(0x8DB9))                  // the host's framebuffer is sRGB: writes would be encoded
        case .logicOpInvert: glEnable(GLenum(0x0BF2)); HostDesktopGL.logicOp(GLenum(0x150A))
        case .polygonModeLine: HostDesktopGL.polygonMode(GLenum(0x0408), GLenum(0x1B01))
        case .polygonSmooth: glEnable(GLenum(0x0B41))
        case .primitiveRestartIndex1: glEnable(GLenum(0x8F9D)); HostDesktopGL.primitiveRestartIndex(1)
        case .clipDistancesOn: for i in 0..<8 { glEnable(GLenum(0x3000 + Int32(i))) }
        case .multisampleOff: glDisable(GLenum(0x809D))
        case .clipControlUpperLeft: HostDesktopGL.clipControl(GLenum(0x8CA2), GLenum(0x935F))   // upper left, zero to one
        case .swapBytes:
            for name: Int32 in [0x0CF0, 0x0CF1, 0x0D00, 0x0D01] { glPixelStorei(GLenum(name), 1) }
            glPixelStorei(GLenum(0x806C), 3); glPixelStorei(GLenum(0x806B), 2)       // pack image height, skip images
        case .alphaTestNever: glEnable(GLenum(0x0BC0)); HostDesktopGL.alphaFunc(GLenum(GL_NEVER), 0)
        }
    }

    /// The host undoes what would stop it from reading its own pixels; a problem found
    /// with state the fingerprint does not cover, if any.
    func undo(framebuffer: GLuint) -> String? {
        switch self {
        case .rasterizerDiscard: glDisable(GLenum(GL_RASTERIZER_DISCARD))
        case .transformFeedback:
            var active: GLboolean = 0, paused: GLboolean = 0
            glGetBooleanv(GLenum(GL_TRANSFORM_FEEDBACK_ACTIVE), &active)
            glGetBooleanv(GLenum(GL_TRANSFORM_FEEDBACK_PAUSED), &paused)
            glEndTransformFeedback()
            glUseProgram(0)
            if active != GLboolean(GL_TRUE) || paused == GLboolean(GL_TRUE) { return "transform feedback not left active and running" }
        case .activeQuery: glEndQuery(GLenum(GL_ANY_SAMPLES_PASSED))
        case .logicOpInvert: glDisable(GLenum(0x0BF2))
        case .polygonModeLine: HostDesktopGL.polygonMode(GLenum(0x0408), GLenum(0x1B02))
        case .primitiveRestartIndex1: glDisable(GLenum(0x8F9D))
        case .clipDistancesOn: for i in 0..<8 { glDisable(GLenum(0x3000 + Int32(i))) }
        case .clipControlUpperLeft: HostDesktopGL.clipControl(GLenum(0x8CA1), GLenum(0x935E))
        case .swapBytes: for name: Int32 in [0x0CF0, 0x0CF1, 0x0D00, 0x0D01, 0x806C, 0x806B] { glPixelStorei(GLenum(name), 0) }
        case .alphaTestNever: glDisable(GLenum(0x0BC0))
        case .framebufferSRGB: glDisable(GLenum(0x8DB9))
        case .drawBuffersNone:
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
            var v: GLint = 0
            glGetIntegerv(GLenum(GL_DRAW_BUFFER0), &v)
            glDrawBuffers(1, [GLenum(GL_COLOR_ATTACHMENT0)])
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
            if v != GL_NONE { return "the host framebuffer's draw buffer 0 is 0x\(String(v, radix: 16)), not GL_NONE as the host set it" }
        default: break
        }
        return nil
    }

    /// The error the host left pending, which must still be pending after Lamina.
    var pendingError: GLenum {
        switch self {
        case .pendingInvalidEnum: return GLenum(GL_INVALID_ENUM)
        case .pendingInvalidValue: return GLenum(GL_INVALID_VALUE)
        case .pendingInvalidOperation: return GLenum(GL_INVALID_OPERATION)
        default: return GLenum(GL_NO_ERROR)
        }
    }
}

@MainActor
@Suite("Embedding: a hostile host's GL state", .isolatedTransactions)
struct HostileStateTests {
    /// Renders the test scene on an adopted host context, with `hostile` state set by the
    /// host beforehand; returns the host's framebuffer as the host reads it, and checks
    /// that the host's state (and pending error) is as it left it.
    private func render(hostile: HostileState?, api: TestHost.API = .es3, glsl330: Bool = false) throws -> (image: RGBAImage, changed: [String], errorAfter: GLenum, reports: Int, other: String?) {
        try Transaction.flush()
        let host = try TestHost(api: api)
        defer { host.destroy() }
        // Desktop hosts draw into an sRGB framebuffer, where GL_FRAMEBUFFER_SRGB matters.
        let fb = host.makeFramebuffer(sceneSize, sRGB: api.isDesktop)
        host.fill(fb.fbo, PixelRect(size: sceneSize), (0.2, 0.4, 0.6, 1), size: sceneSize)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        hostile?.apply(host: host, framebuffer: fb.fbo)
        let before = hostStateFingerprint()
        let device = try GPUDevice(adopting: .current)
        if glsl330 {
            device.compileShadersAsGLSL330()
            #expect(device.shaderDialect == "GLSL 3.30 core")
        }
        var reports = 0
        device.glErrorHandler = { _ in reports += 1 }
        let window = Window(target: try ExternalFramebufferTarget(device: device, framebuffer: fb.fbo, pixelSize: sceneSize), background: nil)
        buildScene(in: window)
        try window.compositeNow()
        let errorAfter = glGetError()
        let changed = changedState(before, hostStateFingerprint())
        #expect(glGetError() == GLenum(GL_NO_ERROR))
        window.host.detach()
        device.close()
        // The host undoes what would stop it reading its pixels.
        let other = hostile?.undo(framebuffer: fb.fbo)
        return (host.read(fb.fbo, size: sceneSize), changed, errorAfter, reports, other)
    }

    @Test("each hostile state leaves Lamina's output pixel-identical to a clean context's, and the host's state as the host left it",
          arguments: HostileState.allCases.filter { $0.applies(to: .es3) })
    func hostile(_ state: HostileState) throws {
        try check(state, api: .es3)
    }

    @Test("a desktop OpenGL host (3.3 core, 4.5 compatibility): every hostile state, desktop-only state included, leaves Lamina's output identical to a clean context's and the host's state as it was",
          arguments: TestHost.API.desktop.flatMap { api in HostileState.allCases.filter { $0.applies(to: api) }.map { (api, $0) } })
    func desktopHostile(_ api: TestHost.API, _ state: HostileState) throws {
        try check(state, api: api)
    }

    @Test("a desktop context without GL_ARB_ES3_compatibility: Lamina's GLSL ES 3.00 compiled as #version 330 core draws the same pixels",
          arguments: TestHost.API.desktop)
    func glsl330(_ api: TestHost.API) throws {
        let es = try render(hostile: nil, api: api)
        let core = try render(hostile: nil, api: api, glsl330: true)
        #expect(es.image[30, 20] == px(0, 255, 0) && es.image[55, 10] == px(0, 0, 255))
        let d = core.image.difference(from: es.image, tolerance: 0)
        #expect(d.differing == 0, "\(d.differing) pixels differ (max \(d.maxDifference))")
        #expect(core.changed.isEmpty && core.reports == 0, "\(core.changed)")
    }

    private func check(_ state: HostileState, api: TestHost.API) throws {
        let clean = try render(hostile: nil, api: api)
        #expect(clean.changed.isEmpty, "\(clean.changed)")
        // The clean scene is what it should be (so that "identical" means "right").
        #expect(clean.image[6, 16] == px(255, 0, 0))                 // clip's red, left of the green child
        #expect(clean.image[30, 20] == px(0, 255, 0))                // green child inside the rounded clip
        #expect(clean.image[46, 16] == px(51, 102, 153))             // host's colour between views
        #expect(clean.image[5, 5] == px(51, 102, 153))               // outside the rounded corner
        #expect(clean.image[55, 10] == px(0, 0, 255))                // drawn view, left half
        #expect(clean.image[6, 34] == px(255, 0, 0))                 // magnified image's red quadrant
        let hostile = try render(hostile: state, api: api)
        let d = hostile.image.difference(from: clean.image, tolerance: 0)
        #expect(d.differing == 0, "\(state): \(d.differing) pixels differ (max \(d.maxDifference))")
        if state == .deletedCurrentProgram {
            // A program deleted while current may go when Lamina binds its own (documented):
            // Mesa deletes it then, and Lamina binds none; NVIDIA's driver keeps it, and
            // Lamina binds it again.
            #expect(hostile.changed.isEmpty || (hostile.changed.count == 1 && hostile.changed[0].hasPrefix("program:")
                        && hostile.changed[0].hasSuffix("→ [0]")), "\(hostile.changed)")
        } else {
            #expect(hostile.changed.isEmpty, "\(state): host state changed: \(hostile.changed)")
        }
        #expect(hostile.other == nil, "\(state): \(hostile.other ?? "")")
        #expect(hostile.reports == 0, "\(state): a host error was reported as Lamina's")
        #expect(hostile.errorAfter == state.pendingError, "\(state): the host's pending error (or none) is as it left it")
    }
}

@MainActor
@Suite("Embedding: compositing into a host's frame", .isolatedTransactions)
struct HostFrameTests {
    @Test("load mode composites over the host's pixels; clear mode replaces them")
    func loadAndClear() throws {
        try Transaction.flush()
        let host = try TestHost()
        defer { host.destroy() }
        let size = PixelSize(width: 40, height: 20)
        let device = try GPUDevice(adopting: .current)
        defer { device.close() }
        for background in [nil, Color.white] {
            let fb = host.makeFramebuffer(size)
            host.fill(fb.fbo, PixelRect(size: size), (0, 0, 1, 1), size: size)
            let window = Window(target: try ExternalFramebufferTarget(device: device, framebuffer: fb.fbo, pixelSize: size), background: background)
            let veil = View(frame: Rect(x: 0, y: 0, width: 20, height: 20))
            veil.backgroundColor = Color(red: 1, green: 0, blue: 0, alpha: 0.5)
            window.addSubview(veil)
            try window.compositeNow()
            let image = host.read(fb.fbo, size: size)
            if background == nil {
                #expect(image[30, 10] == px(0, 0, 255))                                  // the host's pixel, untouched
                #expect(image[10, 10].maxChannelDifference(px(128, 0, 127)) <= 1)      // half red over the host's blue
            } else {
                #expect(image[30, 10] == px(255, 255, 255))
                #expect(image[10, 10].maxChannelDifference(px(255, 127, 127)) <= 1)
            }
            window.host.detach()
        }
    }

    @Test("a sub-rectangle of the host's framebuffer: Lamina clears, draws, clips and reads only there; the host's colour and stencil outside are kept")
    func subRectangle() throws {
        let h = try AdoptedHost(framebuffer: PixelSize(width: 64, height: 48))
        defer { h.close() }
        h.fill((0, 0, 1, 1))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), h.framebuffer.fbo)
        glClearStencil(5)
        glDisable(GLenum(GL_SCISSOR_TEST))
        glClear(GLbitfield(GL_STENCIL_BUFFER_BIT))
        let region = PixelRect(x: 16, y: 8, width: 32, height: 24)     // top-left origin, in the picture
        let target = try h.target(region: region)
        #expect(target.size == Size(width: 32, height: 24))
        let window = Window(target: target, background: .white)
        defer { window.host.detach() }
        let clip = View(frame: Rect(x: 0, y: 0, width: 8, height: 8))
        clip.clipsToBounds = true
        let big = View(frame: Rect(x: -100, y: -100, width: 300, height: 300))   // clipped to 8×8 at the region's corner
        big.backgroundColor = .red
        clip.addSubview(big)
        window.addSubview(clip)
        try window.compositeNow()
        let image = h.read()
        let mismatches = image.pixels { x, y in
            if x >= 16 && x < 24 && y >= 8 && y < 16 { return px(255, 0, 0) }
            return region.contains(x: x, y: y) ? px(255, 255, 255) : px(0, 0, 255)
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // The target reads its own region, top-left origin.
        let own = try target.readPixels()
        #expect(own.width == 32 && own[2, 2] == px(255, 0, 0) && own[20, 20] == px(255, 255, 255))
        // The host's stencil outside the region still holds 5: the host's own stencil test shows it.
        glEnable(GLenum(GL_STENCIL_TEST))
        glStencilFunc(GLenum(GL_EQUAL), 5, 0xff)
        h.fill((0, 1, 0, 1))
        glDisable(GLenum(GL_STENCIL_TEST))
        let stencilled = h.read()
        let wrong = stencilled.pixels { x, y in region.contains(x: x, y: y) ? nil : px(0, 255, 0) }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("retained mode: the tree is composited once into Lamina's texture; each host frame draws it with one quad (or samples it by its GL name)")
    func retained() throws {
        let h = try AdoptedHost(framebuffer: PixelSize(width: 48, height: 32))
        defer { h.close() }
        let window = Window(target: try OffscreenTarget(device: h.device, pixelSize: PixelSize(width: 24, height: 16)), background: .clear)
        defer { window.host.detach() }
        let red = View(frame: Rect(x: 0, y: 0, width: 12, height: 16))
        red.backgroundColor = .red
        window.addSubview(red)
        let destination = try h.target()
        let colors: [(Float, Float, Float)] = [(0, 0, 1), (0, 1, 0), (1, 1, 0)]
        for (frame, c) in colors.enumerated() {
            h.fill((c.0, c.1, c.2, 1))   // the host's frame
            try Transaction.commitIfNeeded()
            #expect(window.host.frameCount == 1, "frame \(frame): composited only when the tree changed")
            let stats = try window.host.present(into: destination, in: Rect(x: 8, y: 8, width: 24, height: 16))
            #expect(stats.drawCalls == 1)
            let image = h.read()
            let hostPixel = px(UInt8(c.0 * 255), UInt8(c.1 * 255), UInt8(c.2 * 255))
            #expect(image[10, 10] == px(255, 0, 0))            // Lamina's view, placed at (8, 8)
            #expect(image[25, 10] == hostPixel)                // Lamina's transparent part shows the host
            #expect(image[2, 2] == hostPixel && image[40, 28] == hostPixel)
        }
        // The host can sample the retained texture itself, by name (same context).
        let name = try #require(window.host.target.texture?.glName)
        let seen = h.host.read(texture: name, size: PixelSize(width: 24, height: 16))
        #expect(seen[4, 4] == px(255, 0, 0) && seen[20, 4] == px(0, 0, 0, 0))
        // The tree changes: composited again, once, and nothing of the old frame stays.
        red.frame = Rect(x: 12, y: 0, width: 12, height: 16)
        h.fill((0, 0, 1, 1))
        try Transaction.commitIfNeeded()
        try window.host.present(into: destination, in: Rect(x: 8, y: 8, width: 24, height: 16))
        #expect(window.host.frameCount == 2)
        let moved = h.read()
        #expect(moved[10, 10] == px(0, 0, 255), "the view's old place shows the host again")
        #expect(moved[25, 10] == px(255, 0, 0), "the view's new place")
    }

    @Test("every-frame mode: each commit composites over the host's new frame from the last render list: no tree walk, layout, draw or upload")
    func everyFrame() throws {
        let h = try AdoptedHost(framebuffer: PixelSize(width: 48, height: 32))
        defer { h.close() }
        let window = Window(target: try h.target(), background: nil)
        defer { window.host.detach() }
        window.host.compositesEveryFrame = true
        let drawn = Halves(frame: Rect(x: 0, y: 0, width: 24, height: 16))
        drawn.isOpaque = false
        window.addSubview(drawn)
        var first: FrameStatistics?
        for (frame, c) in [(Float(1), Float(0), Float(0)), (0, 1, 0), (1, 1, 1), (0, 0, 0)].enumerated() {
            h.fill((c.0, c.1, c.2, 1))
            try Transaction.commitIfNeeded()
            let stats = window.lastFrame
            let image = h.read()
            #expect(image[4, 4] == px(0, 0, 255), "frame \(frame): the UI is there")
            #expect(image[40, 20] == px(UInt8(c.0 * 255), UInt8(c.1 * 255), UInt8(c.2 * 255)))
            if let first {
                #expect(!stats.skipped && stats.reusedRenderList)
                #expect(stats.drawCalls == first.drawCalls && stats.layersVisited == 0)
                #expect(stats.layoutPasses == 0 && stats.displays.isEmpty && stats.textureBytesUploaded == 0)
            } else {
                first = stats
                #expect(stats.layersDrawn == 1 && stats.textureBytesUploaded > 0)
            }
        }
    }
}

@MainActor
@Suite("Embedding: interop handles", .isolatedTransactions)
struct InteropTests {
    @Test("a host's texture lent as layer contents and as a render target: drawn and drawn into, never deleted or altered by Lamina")
    func borrowed() throws {
        try Transaction.flush()
        let host = try TestHost()
        defer { host.destroy() }
        let fb = host.makeFramebuffer(PixelSize(width: 8, height: 8), depthStencil: false)
        host.fill(fb.fbo, PixelRect(size: PixelSize(width: 8, height: 8)), (0, 1, 0, 1), size: PixelSize(width: 8, height: 8))
        glBindTexture(GLenum(GL_TEXTURE_2D), fb.texture)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), GL_NEAREST)
        glBindTexture(GLenum(GL_TEXTURE_2D), 0)
        let device = try GPUDevice(adopting: .current)
        defer { device.close() }
        let lent = try device.borrowTexture(glName: fb.texture, pixelSize: PixelSize(width: 8, height: 8))
        #expect(lent.isBorrowed && device.liveObjectCounts[.texture] == 0)
        // As contents.
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 16, height: 16))
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 16, height: 16)
        root.contents = .texture(lent)
        root.magnificationFilter = .linear
        try LayerRenderer(device: device).render(root, to: target, background: .white)
        #expect(try target.readPixels()[8, 8] == px(0, 255, 0))
        // As a target.
        let into = try OffscreenTarget(device: device, texture: lent)
        let pass = try device.beginRenderPass(on: into, clear: .red)
        try pass.fill(Rect(x: 0, y: 0, width: 4, height: 8), color: .blue)
        pass.submit()
        into.release()
        lent.release()
        #expect(glIsTexture(fb.texture) == GLboolean(GL_TRUE))
        var filter: GLint = 0
        glBindTexture(GLenum(GL_TEXTURE_2D), fb.texture)
        glGetTexParameteriv(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), &filter)
        glBindTexture(GLenum(GL_TEXTURE_2D), 0)
        #expect(filter == GL_NEAREST, "Lamina samples through its own sampler; the host's parameters are kept")
        let image = host.read(fb.fbo, size: PixelSize(width: 8, height: 8), bottomRowFirst: false)
        #expect(image[1, 1] == px(0, 0, 255) && image[6, 6] == px(255, 0, 0))
        target.release()
        #expect(device.liveObjectCounts[.texture] == 0 && device.liveObjectCounts[.framebuffer] == 0)
        // A name that is not a texture of this context.
        #expect { _ = try device.borrowTexture(glName: 987_654, pixelSize: PixelSize(width: 8, height: 8)) }
            throws: { "\($0)".contains("texture 987654 is not an object") }
    }
}

extension RGBAImage {
    /// Pixels that differ from `expected` (nil: not checked), as "(x,y) got/expected" lines.
    fileprivate func pixels(limit: Int = 8, _ expected: (Int, Int) -> RGBAPixel?) -> [String] {
        var out: [String] = []
        var count = 0
        for y in 0..<height { for x in 0..<width {
            guard let e = expected(x, y), self[x, y] != e else { continue }
            count += 1
            if out.count < limit { out.append("(\(x),\(y)) got \(self[x, y]) expected \(e)") }
        } }
        if count > limit { out.append("… \(count) in all") }
        return out
    }
}
