// Software prefetch for the loops that visit one heap object per layer (a commit's changed
// layers, the render tree's updated nodes): the hardware prefetchers follow arrays, not the
// objects an array of references points to.
#include <stddef.h>

/// Asks for the cache lines of `bytes` bytes at `p` to be read into the cache (a hint: no
/// fault, no effect on what the program computes).
static inline void lamina_prefetch(const void *p, size_t bytes) {
    const char *c = (const char *)p;
    for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(c + o, 0, 3);
}
