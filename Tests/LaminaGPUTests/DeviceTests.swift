import CGLES
import Foundation
import LaminaGeometry
import Testing
@testable import LaminaGPU

@Suite("Device and backends")
struct DeviceTests {
    @Test("opens on the surfaceless platform")
    func surfaceless() throws {
        let d = try openDevice(.only(.surfaceless))
        #expect(d.backend == .surfaceless)
        #expect(d.capabilities.glVersion.contains("OpenGL ES 3"))
    }

    @Test("opens on the EGL device platform")
    func eglDevice() throws {
        let d = try openDevice(.only(.device))
        #expect(d.backend == .device)
        #expect(d.backendDetail.hasPrefix("EGL device"))
        #expect(d.capabilities.glVersion.contains("OpenGL ES 3"))
    }

    @Test("auto picks the first working backend in the order gbm, device, surfaceless")
    func autoOrder() throws {
        let d = try openDevice(.auto)
        let hasDRM = !BackendOpener.drmNodes(requested: nil).isEmpty
        // On a machine without /dev/dri the first that works is the EGL device platform.
        #expect(d.backend == (hasDRM ? .gbm : .device))
    }

    @Test("forcing a backend that cannot work throws an error that names it and what was tried")
    func forcedUnavailable() throws {
        do {
            _ = try GPUDevice(backend: .only(.gbm), drmDevice: "/dev/dri/card-does-not-exist")
            Issue.record("opening gbm on a missing node should throw")
        } catch let error as GPUError {
            guard case let .noUsableBackend(selection, attempts) = error else {
                Issue.record("unexpected error \(error)"); return
            }
            #expect(selection == "gbm")
            #expect(attempts.count == 1)
            #expect(attempts.first?.backend == .gbm)
            #expect(attempts.first?.what == "/dev/dri/card-does-not-exist")
            let message = error.description
            #expect(message.contains("gbm (/dev/dri/card-does-not-exist)"))
            #expect(message.contains("No such file or directory"))
            #expect(message.contains("LAMINA_BACKEND"))
        }
    }

    @Test("backend names parse; a bad name (as from LAMINA_BACKEND) throws with the valid ones")
    func parsing() throws {
        #expect(try BackendSelection(parsing: "auto") == .auto)
        #expect(try BackendSelection(parsing: "GBM") == .only(.gbm))
        #expect(try BackendSelection(parsing: " device ") == .only(.device))
        #expect(try BackendSelection(parsing: "surfaceless") == .only(.surfaceless))
        #expect(throws: GPUError.invalidBackendName("vulkan")) { try BackendSelection(parsing: "vulkan") }
        #expect(GPUError.invalidBackendName("vulkan").description.contains("auto, gbm, device or surfaceless"))
        // A host's display is adopted or shared through the API, never selected by name.
        #expect(throws: GPUError.invalidBackendName("host")) { try BackendSelection(parsing: "host") }
    }

    @Test("capabilities are detected once and agree with the driver's own answers")
    func capabilities() throws {
        let d = try openDevice()
        let c = d.capabilities
        var maxTexture: GLint = 0
        let extensions = try d.withContext {
            glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &maxTexture)
            return String(cString: glGetString(GLenum(GL_EXTENSIONS))!)
        }
        #expect(c.maxTextureSize == Int(maxTexture) && c.maxTextureSize >= 2048)
        #expect(c.maxRenderTargetSize <= c.maxTextureSize && c.maxRenderTargetSize > 0)
        #expect(c.glExtensions == Set(extensions.split(separator: " ").map(String.init)))
        #expect(c.glExtensions.contains("GL_KHR_debug") && c.khrDebug)     // Mesa has it
        #expect(c.glVersion.hasPrefix("OpenGL ES 3"))
        #expect(c.glRenderer.contains("llvmpipe") || !c.glRenderer.isEmpty)
        #expect(c.eglVersion.hasPrefix("1."))
    }

    @Test("a device is freed when dropped, even after drawing (no reference cycle through its caches)")
    func deviceIsFreed() throws {
        weak var weakDevice: GPUDevice?
        do {
            let d = try openDevice()
            weakDevice = d
            let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 4))
            let pass = try d.beginRenderPass(on: t, clear: .red)
            try pass.fill(Rect(x: 0, y: 0, width: 2, height: 2), color: .blue)
            pass.submit()
            t.release()
        }
        #expect(weakDevice == nil)
    }

    @Test("two devices on one platform are independent: closing one leaves the other working")
    func sharedDisplay() throws {
        let a = try openDevice(.only(.surfaceless))
        let b = try openDevice(.only(.surfaceless))
        #expect(a.display == b.display)   // EGL gives one display per platform
        a.close()
        let target = try OffscreenTarget(device: b, pixelSize: PixelSize(width: 4, height: 4))
        let pass = try b.beginRenderPass(on: target, clear: .green)
        pass.submit()
        #expect(try target.readPixels()[1, 1] == px(0, 255, 0))
    }

    #if DEBUG
    @Test("debug builds catch GL errors from our calls and name them")
    func glErrorsAreNamed() throws {
        let d = try openDevice()
        var reports: [GLErrorReport] = []
        d.glErrorHandler = { reports.append($0) }
        try d.withContext {
            glBindTexture(0xDEAD, 0)   // not a texture target
            d.checkGLError("glBindTexture(0xDEAD)")
        }
        #expect(reports.count == 1)
        #expect(reports.first?.name == "GL_INVALID_ENUM")
        #expect(reports.first?.call == "glBindTexture(0xDEAD)")
        // A clean call reports nothing.
        try d.withContext {
            glBindTexture(GLenum(GL_TEXTURE_2D), 0)
            d.checkGLError("glBindTexture")
        }
        #expect(reports.count == 1)
    }
    #endif
}
