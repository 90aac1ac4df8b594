import Glibc
import LaminaValues

/// GLX, as the host process has it: looked up with `dlopen(RTLD_NOLOAD)` in libglvnd's
/// `libGLX.so.0` (or a `libGL.so.1` with GLX), so Lamina neither links nor loads it — a
/// process that never loaded GLX has no GLX context to find. Under libglvnd, GLX and EGL
/// share one GL dispatch per thread: GL calls reach whichever context is current, but
/// `eglMakeCurrent` fails with `EGL_BAD_ACCESS` while a GLX context is current, so a GLX
/// binding is released before Lamina's EGL context is made current and put back after.
struct GLXFunctions: @unchecked Sendable {
    typealias GetPointer = @convention(c) () -> UnsafeMutableRawPointer?
    typealias GetDrawable = @convention(c) () -> UInt
    typealias MakeContextCurrent = @convention(c) (UnsafeMutableRawPointer?, UInt, UInt, UnsafeMutableRawPointer?) -> Int32
    let getCurrentContext: GetPointer
    let getCurrentDisplay: GetPointer
    let getCurrentDrawable: GetDrawable
    let getCurrentReadDrawable: GetDrawable
    let makeContextCurrent: MakeContextCurrent

    private static let found = Locked<GLXFunctions?>(nil)

    /// GLX's entry points if they were found before (no lookup: nearly free).
    static var ifKnown: GLXFunctions? { found.withLock { $0 } }

    /// GLX's entry points if the process has loaded GLX (found once, then kept). Looking
    /// costs about 10 µs, so it is done only where GLX may matter: adopting a context
    /// when no EGL context is current, and after `eglMakeCurrent` failed with
    /// `EGL_BAD_ACCESS`.
    static var ifLoaded: GLXFunctions? {
        if let f = ifKnown { return f }
        for library in ["libGLX.so.0", "libGL.so.1"] {
            // The handle is kept: the library stays loaded for the host anyway.
            guard let h = dlopen(library, RTLD_LAZY | RTLD_NOLOAD),
                  let context = dlsym(h, "glXGetCurrentContext"), let display = dlsym(h, "glXGetCurrentDisplay"),
                  let draw = dlsym(h, "glXGetCurrentDrawable"), let read = dlsym(h, "glXGetCurrentReadDrawable"),
                  let make = dlsym(h, "glXMakeContextCurrent") else { continue }
            let f = GLXFunctions(getCurrentContext: unsafeBitCast(context, to: GetPointer.self),
                                 getCurrentDisplay: unsafeBitCast(display, to: GetPointer.self),
                                 getCurrentDrawable: unsafeBitCast(draw, to: GetDrawable.self),
                                 getCurrentReadDrawable: unsafeBitCast(read, to: GetDrawable.self),
                                 makeContextCurrent: unsafeBitCast(make, to: MakeContextCurrent.self))
            found.withLock { $0 = f }
            return f
        }
        return nil
    }
}

/// A GLX context current on a thread, with its X display and drawables.
struct GLXBinding: Equatable {
    var display: UnsafeMutableRawPointer
    var context: UnsafeMutableRawPointer
    var draw: UInt
    var read: UInt

    static func == (a: GLXBinding, b: GLXBinding) -> Bool {
        a.display == b.display && a.context == b.context && a.draw == b.draw && a.read == b.read
    }

    /// The GLX context current on this thread, if GLX is loaded (`lookUp`: looked for if not
    /// known yet) and one is.
    static func current(lookUp: Bool = false) -> GLXBinding? {
        guard let f = lookUp ? GLXFunctions.ifLoaded : GLXFunctions.ifKnown, let context = f.getCurrentContext(), let display = f.getCurrentDisplay() else { return nil }
        return GLXBinding(display: display, context: context, draw: f.getCurrentDrawable(), read: f.getCurrentReadDrawable())
    }

    /// Makes this binding current again; false if GLX refused.
    @discardableResult
    func makeCurrent() -> Bool {
        guard let f = GLXFunctions.ifKnown else { return false }
        return f.makeContextCurrent(display, draw, read, context) != 0
    }

    /// Releases the GLX context current on this thread, if any (before `eglMakeCurrent`).
    static func releaseCurrent() {
        guard let f = GLXFunctions.ifKnown, f.getCurrentContext() != nil, let display = f.getCurrentDisplay() else { return }
        _ = f.makeContextCurrent(display, 0, 0, nil)
    }
}
