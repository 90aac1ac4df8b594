// EGL for Swift. Headers only; no X11 (we never open a window system display).
// Extension functions are loaded with eglGetProcAddress (libEGL exports none of them).
#define EGL_NO_X11 1
#define MESA_EGL_NO_X11_HEADERS 1
#include <EGL/egl.h>
#include <EGL/eglext.h>

// Swift cannot import macros that are casts (EGL_NO_DISPLAY, EGL_NO_CONTEXT, ...):
// in Swift those are simply `nil`. Nothing else is needed here.
