// A minimal Wayland client for the Wayland example (Examples/Wayland): a fullscreen
// xdg_toplevel whose buffers are dma-bufs shared through zwp_linux_dmabuf_v1.
#ifndef LAMINA_WAYLAND_H
#define LAMINA_WAYLAND_H
#include <stdint.h>

typedef struct lw_client lw_client;

/// Connects (WAYLAND_DISPLAY), binds the globals, makes a fullscreen toplevel and waits
/// for its first configure. NULL on failure, with a message in `error` (256 bytes).
lw_client *lw_connect(const char *title, char *error);
/// The size the compositor configured (0 when it lets the client choose).
int32_t lw_width(lw_client *c);
int32_t lw_height(lw_client *c);
/// Makes a wl_buffer of a single-plane dma-buf (zwp_linux_buffer_params_v1.create_immed);
/// returns its index (>= 0), or -1 with a message in `error`. `fd` is not closed.
int lw_add_dmabuf(lw_client *c, int fd, uint32_t offset, uint32_t stride, uint64_t modifier,
                  int32_t width, int32_t height, uint32_t format, char *error);
/// Attaches buffer `index`, damages (x, y, w, h in buffer pixels), asks for a frame
/// callback and commits. 0, or -1 when the connection failed.
int lw_present(lw_client *c, int index, int32_t x, int32_t y, int32_t w, int32_t h);
/// Dispatches events until the last frame callback is done (or `timeout_ms`). 1 when
/// done, 0 on timeout, -1 on a connection error.
int lw_wait_frame(lw_client *c, int timeout_ms);
/// Whether the compositor released buffer `index` since it was last attached.
int lw_released(lw_client *c, int index);
/// The compositor's name for the dmabuf formats it announced (count).
int lw_format_count(lw_client *c);
void lw_disconnect(lw_client *c);
#endif
