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

// Effects combined: a masked transition; replicas and shadows past the target's edge;
// mask cycles; blend modes and backdrop blurs on callers' framebuffers.
extension EffectsTests {
    @Test("a masked layer in a transition fades: its masked composite follows the mix (not frozen at its first frame)")
    func maskedTransition() throws {
        let stage = try AnimationStage()
        defer { stage.close() }
        let l = Layer()
        l.frame = Rect(x: 40, y: 40, width: 120, height: 120)
        l.mask = { let m = solid(Rect(x: 0, y: 0, width: 120, height: 120), .black); m.cornerRadius = 30; return m }()
        let a = solid(Rect(x: 0, y: 0, width: 120, height: 120), Color(red: 1, green: 0, blue: 0))
        l.addSublayer(a)
        stage.root.addSublayer(l)
        try stage.frame(at: 0)
        var t = TransitionAnimation(type: .fade)
        t.duration = 1
        l.add(t, forKey: nil)
        a.backgroundColor = Color(red: 0, green: 0, blue: 1)
        let start = try stage.frame(at: 0), mid = try stage.frame(at: 0.5), end = try stage.frame(at: 1.5)
        #expect(start[100, 100].r > 240 && end[100, 100].b > 240, "\(start[100, 100]) \(end[100, 100])")
        #expect(abs(Int(mid[100, 100].r) - 128) <= 3 && abs(Int(mid[100, 100].b) - 128) <= 3, "half way: \(mid[100, 100])")
        #expect(mid[42, 42] == white, "the mask's rounded corner")
    }

    @Test("a replicator's sublayer off the target's edge shows where an instance moves it on screen; a layer-alpha shadow of a layer half off screen is whole")
    func offscreenSources() throws {
        let root = rootLayer()
        let r = ReplicatorLayer()
        r.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        r.addSublayer(solid(Rect(x: -40, y: 20, width: 30, height: 30), Color(red: 1, green: 0, blue: 0)))
        r.instanceCount = 2
        r.instanceTransform = Transform3D(translationX: 60, y: 0)
        root.addSublayer(r)
        let l = solid(Rect(x: -50, y: 100, width: 100, height: 60), Color(red: 0, green: 0, blue: 1))
        l.addSublayer(Layer())   // (the shadow follows the subtree's alpha)
        l.shadowOpacity = 1
        l.shadowRadius = 4
        l.shadowOffset = Size(width: 60, height: 0)
        root.addSublayer(l)
        let (image, _) = try render(root)
        #expect(image[35, 35] == red, "the second instance, on screen: \(image[35, 35])")
        // The shadow, 60 to the right: its whole 100-point width shows, from the off-screen part too.
        #expect(image[62, 130].r < 40 && image[100, 130].r < 40, "\(image[62, 130]) \(image[100, 130])")
    }

    @Test("mask cycles are refused: a layer cannot mask a layer above it, nor become a sublayer of its own mask")
    func maskCycles() throws {
        let a = Layer(), b = Layer(), c = Layer()
        a.mask = b
        b.mask = a
        #expect(a.mask === b && b.mask == nil)
        b.addSublayer(c)
        c.mask = a
        #expect(c.mask == nil)
        #expect(b.addSublayer(a) == false && a.superlayer == nil)
        #expect(a.rootLayer === a && b.rootLayer === a)
    }
}

extension EffectsTests {
    @Test("blend modes and backdrop blurs read the right pixels of a caller's framebuffer stored bottom row first, in a panel of it (as a window's): the same picture as an offscreen target", arguments: [false, true])
    func effectsOnCallersFramebuffer(bottomRowFirst: Bool) throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let (scene, expected) = try EffectsTests.framebufferScene(device)
        // The caller's framebuffer: 90×80, Lamina drawing into a 64×56 panel at (10, 12).
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 90, height: 80))
        var fbo = try colorOnlyFramebuffer(device, over: texture)
        defer { try? device.withContext { glDeleteFramebuffers(1, &fbo) } }
        let panel = try ExternalFramebufferTarget(device: device, framebuffer: fbo, pixelSize: PixelSize(width: 90, height: 80),
                                                  region: PixelRect(x: 10, y: 12, width: 64, height: 56), bottomRowFirst: bottomRowFirst)
        let c2 = LayerRenderer(device: device)
        defer { c2.release() }
        try c2.render(scene(), to: panel, background: .white)
        let got = try panel.readPixels()
        let d = got.difference(from: expected, tolerance: 1)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
        #expect(c2.lastFrame.blurs == 1)
    }
}

extension EffectsTests {
    @Test("blend modes and backdrop blurs on a host's multisampled RGB8 framebuffer (resolved in its own format before the copy) equal an offscreen render")
    func effectsOnMultisampledFramebuffer() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let (scene, expected) = try EffectsTests.framebufferScene(device)
        // The host's framebuffer: 4× multisampled RGB8 colour, 8-bit stencil.
        var fbo: GLuint = 0, color: GLuint = 0, stencil: GLuint = 0, resolveFBO: GLuint = 0, resolveColor: GLuint = 0
        try device.withContext {
            glGenRenderbuffers(1, &color)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), color)
            glRenderbufferStorageMultisample(GLenum(GL_RENDERBUFFER), 4, GLenum(GL_RGB8), 64, 56)
            glGenRenderbuffers(1, &stencil)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), stencil)
            glRenderbufferStorageMultisample(GLenum(GL_RENDERBUFFER), 4, GLenum(GL_DEPTH24_STENCIL8), 64, 56)
            glGenFramebuffers(1, &fbo)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), color)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_STENCIL_ATTACHMENT), GLenum(GL_RENDERBUFFER), stencil)
            glGenRenderbuffers(1, &resolveColor)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), resolveColor)
            glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_RGB8), 64, 56)
            glGenFramebuffers(1, &resolveFBO)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), resolveFBO)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), resolveColor)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), 0)
        }
        defer {
            try? device.withContext {
                glDeleteFramebuffers(1, &fbo); glDeleteFramebuffers(1, &resolveFBO)
                glDeleteRenderbuffers(1, &color); glDeleteRenderbuffers(1, &stencil); glDeleteRenderbuffers(1, &resolveColor)
            }
        }
        let host = try ExternalFramebufferTarget(device: device, framebuffer: fbo, pixelSize: PixelSize(width: 64, height: 56), bottomRowFirst: false)
        let c2 = LayerRenderer(device: device)
        defer { c2.release() }
        try c2.render(scene(), to: host, background: .white)
        #expect(c2.lastFrame.blurs == 1)
        // Read it as the host would show it: resolved.
        var bytes = [UInt8](repeating: 0, count: 64 * 56 * 4)
        try device.withContext {
            glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), fbo)
            glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), resolveFBO)
            glDisable(GLenum(GL_SCISSOR_TEST))
            glBlitFramebuffer(0, 0, 64, 56, 0, 0, 64, 56, GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
            glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), resolveFBO)
            glReadPixels(0, 0, 64, 56, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
            #expect(glGetError() == GLenum(GL_NO_ERROR))
        }
        let got = RGBAImage(width: 64, height: 56, bytes: bytes)
        let d = got.difference(from: expected, tolerance: 1)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
    }
}

extension EffectsTests {
    /// The scene of the framebuffer tests (stripes, a backdrop blur, a multiply layer), and
    /// its pixels rendered into an offscreen target: what a caller's framebuffer must show.
    static func framebufferScene(_ device: GPUDevice) throws -> (() -> Layer, RGBAImage) {
        var stripes = RGBAImage(width: 64, height: 56)
        for y in 0..<56 { for x in 0..<64 { stripes[x, y] = (x / 5 + y / 7) % 2 == 0 ? px(230, 40, 30) : px(20, 60, 200) } }
        func scene() -> Layer {
            let root = Layer()
            root.frame = Rect(x: 0, y: 0, width: 64, height: 56)
            let back = Layer()
            back.frame = root.frame
            back.contents = .image(ContentImage(stripes))
            root.addSublayer(back)
            let glass = Layer()
            glass.frame = Rect(x: 8, y: 6, width: 30, height: 40)
            glass.backgroundFilters = [.gaussianBlur(radius: 3)]
            root.addSublayer(glass)
            let tint = solid(Rect(x: 30, y: 20, width: 28, height: 30), Color(red: 1, green: 0.8, blue: 0.2))
            tint.compositingFilter = .multiply
            root.addSublayer(tint)
            return root
        }
        let reference = try OffscreenTarget(device: device, size: Size(width: 64, height: 56))
        let c1 = LayerRenderer(device: device)
        defer { c1.release() }
        try c1.render(scene(), to: reference, background: .white)
        return (scene, try reference.readPixels())
    }
}
