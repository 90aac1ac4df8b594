// SDL2 (Debian libsdl2-dev) for Swift, plus the OpenGL ES 3 entry points the host draws its
// own scene with (libGLESv2 through libglvnd, the same dispatch Lamina uses).
#include <SDL2/SDL.h>
#include <GLES3/gl3.h>
