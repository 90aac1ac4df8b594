// OpenGL ES 3.0 core entry points, plus the extension enums and function-pointer
// typedefs (GLES2/gl2ext.h) used for BGRA uploads, KHR_debug and EGLImage targets.
// Extension functions are loaded at run time through eglGetProcAddress, never linked.
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>
