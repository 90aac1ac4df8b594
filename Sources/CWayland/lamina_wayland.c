#include "lamina_wayland.h"
#include "CWayland.h"
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LW_MAX_BUFFERS 8

struct lw_client {
    struct wl_display *display;
    struct wl_registry *registry;
    struct wl_compositor *compositor;
    struct xdg_wm_base *wm_base;
    struct zwp_linux_dmabuf_v1 *dmabuf;
    struct wl_surface *surface;
    struct xdg_surface *xdg_surface;
    struct xdg_toplevel *toplevel;
    int configured;
    int32_t width, height;
    int frame_done;
    int formats;
    struct wl_buffer *buffers[LW_MAX_BUFFERS];
    int released[LW_MAX_BUFFERS];
    int buffer_count;
};

static void registry_global(void *data, struct wl_registry *r, uint32_t name, const char *iface, uint32_t version) {
    lw_client *c = data;
    if (!strcmp(iface, wl_compositor_interface.name)) c->compositor = wl_registry_bind(r, name, &wl_compositor_interface, 4);
    else if (!strcmp(iface, xdg_wm_base_interface.name)) c->wm_base = wl_registry_bind(r, name, &xdg_wm_base_interface, 1);
    else if (!strcmp(iface, zwp_linux_dmabuf_v1_interface.name) && version >= 3)
        c->dmabuf = wl_registry_bind(r, name, &zwp_linux_dmabuf_v1_interface, 3);
}
static void registry_remove(void *data, struct wl_registry *r, uint32_t name) { (void)data; (void)r; (void)name; }
static const struct wl_registry_listener registry_listener = { registry_global, registry_remove };

static void wm_ping(void *data, struct xdg_wm_base *b, uint32_t serial) { (void)data; xdg_wm_base_pong(b, serial); }
static const struct xdg_wm_base_listener wm_listener = { wm_ping };

static void surface_configure(void *data, struct xdg_surface *s, uint32_t serial) {
    lw_client *c = data;
    xdg_surface_ack_configure(s, serial);
    c->configured = 1;
}
static const struct xdg_surface_listener surface_listener = { surface_configure };

static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states) {
    lw_client *c = data; (void)t; (void)states;
    if (w > 0 && h > 0) { c->width = w; c->height = h; }
}
static void toplevel_close(void *data, struct xdg_toplevel *t) { (void)data; (void)t; }
static const struct xdg_toplevel_listener toplevel_listener = { toplevel_configure, toplevel_close };

static void dmabuf_format(void *data, struct zwp_linux_dmabuf_v1 *d, uint32_t format) { (void)d; (void)format; ((lw_client *)data)->formats++; }
static void dmabuf_modifier(void *data, struct zwp_linux_dmabuf_v1 *d, uint32_t format, uint32_t hi, uint32_t lo) {
    (void)d; (void)format; (void)hi; (void)lo; ((lw_client *)data)->formats++;
}
static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = { dmabuf_format, dmabuf_modifier };

static void buffer_release(void *data, struct wl_buffer *b) {
    lw_client *c = data;
    for (int i = 0; i < c->buffer_count; i++) if (c->buffers[i] == b) c->released[i] = 1;
}
static const struct wl_buffer_listener buffer_listener = { buffer_release };

static void frame_done(void *data, struct wl_callback *cb, uint32_t time) {
    (void)time; ((lw_client *)data)->frame_done = 1; wl_callback_destroy(cb);
}
static const struct wl_callback_listener frame_listener = { frame_done };

lw_client *lw_connect(const char *title, char *error) {
    lw_client *c = calloc(1, sizeof *c);
    c->display = wl_display_connect(NULL);
    if (!c->display) { snprintf(error, 256, "wl_display_connect failed (WAYLAND_DISPLAY=%s)", getenv("WAYLAND_DISPLAY") ? getenv("WAYLAND_DISPLAY") : "unset"); free(c); return NULL; }
    c->registry = wl_display_get_registry(c->display);
    wl_registry_add_listener(c->registry, &registry_listener, c);
    wl_display_roundtrip(c->display);
    if (!c->compositor || !c->wm_base || !c->dmabuf) {
        snprintf(error, 256, "the compositor lacks %s", !c->compositor ? "wl_compositor" : !c->wm_base ? "xdg_wm_base" : "zwp_linux_dmabuf_v1 (version 3): its renderer cannot import dma-bufs");
        lw_disconnect(c); return NULL;
    }
    zwp_linux_dmabuf_v1_add_listener(c->dmabuf, &dmabuf_listener, c);
    xdg_wm_base_add_listener(c->wm_base, &wm_listener, c);
    c->surface = wl_compositor_create_surface(c->compositor);
    c->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, c->surface);
    xdg_surface_add_listener(c->xdg_surface, &surface_listener, c);
    c->toplevel = xdg_surface_get_toplevel(c->xdg_surface);
    xdg_toplevel_add_listener(c->toplevel, &toplevel_listener, c);
    xdg_toplevel_set_title(c->toplevel, title);
    xdg_toplevel_set_fullscreen(c->toplevel, NULL);
    wl_surface_commit(c->surface);
    while (!c->configured) if (wl_display_dispatch(c->display) < 0) { snprintf(error, 256, "the connection failed before the first configure"); lw_disconnect(c); return NULL; }
    wl_display_roundtrip(c->display);   // the format events
    return c;
}

int32_t lw_width(lw_client *c) { return c->width; }
int32_t lw_height(lw_client *c) { return c->height; }
int lw_format_count(lw_client *c) { return c->formats; }

int lw_add_dmabuf(lw_client *c, int fd, uint32_t offset, uint32_t stride, uint64_t modifier,
                  int32_t width, int32_t height, uint32_t format, char *error) {
    if (c->buffer_count >= LW_MAX_BUFFERS) { snprintf(error, 256, "at most %d buffers", LW_MAX_BUFFERS); return -1; }
    struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(c->dmabuf);
    zwp_linux_buffer_params_v1_add(params, fd, 0, offset, stride, (uint32_t)(modifier >> 32), (uint32_t)(modifier & 0xffffffff));
    struct wl_buffer *b = zwp_linux_buffer_params_v1_create_immed(params, width, height, format, 0);
    zwp_linux_buffer_params_v1_destroy(params);
    // A refused buffer is a protocol error (create_immed): the roundtrip reports it.
    if (wl_display_roundtrip(c->display) < 0) {
        snprintf(error, 256, "the compositor refused the dma-buf (%s)", wl_display_get_error(c->display) ? "protocol error" : "connection lost");
        return -1;
    }
    wl_buffer_add_listener(b, &buffer_listener, c);
    c->buffers[c->buffer_count] = b;
    c->released[c->buffer_count] = 1;
    return c->buffer_count++;
}

int lw_present(lw_client *c, int index, int32_t x, int32_t y, int32_t w, int32_t h) {
    c->frame_done = 0;
    c->released[index] = 0;
    wl_surface_attach(c->surface, c->buffers[index], 0, 0);
    wl_surface_damage_buffer(c->surface, x, y, w, h);
    struct wl_callback *cb = wl_surface_frame(c->surface);
    wl_callback_add_listener(cb, &frame_listener, c);
    wl_surface_commit(c->surface);
    return wl_display_flush(c->display) < 0 ? -1 : 0;
}

int lw_wait_frame(lw_client *c, int timeout_ms) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!c->frame_done) {
        while (wl_display_prepare_read(c->display) != 0) if (wl_display_dispatch_pending(c->display) < 0) return -1;
        wl_display_flush(c->display);
        clock_gettime(CLOCK_MONOTONIC, &now);
        int left = timeout_ms - (int)((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000);
        if (left <= 0) { wl_display_cancel_read(c->display); return 0; }
        struct pollfd p = { wl_display_get_fd(c->display), POLLIN, 0 };
        if (poll(&p, 1, left) > 0) { if (wl_display_read_events(c->display) < 0) return -1; }
        else wl_display_cancel_read(c->display);
        if (wl_display_dispatch_pending(c->display) < 0) return -1;
    }
    return 1;
}

int lw_released(lw_client *c, int index) { wl_display_dispatch_pending(c->display); return c->released[index]; }

void lw_disconnect(lw_client *c) {
    if (!c) return;
    for (int i = 0; i < c->buffer_count; i++) wl_buffer_destroy(c->buffers[i]);
    if (c->toplevel) xdg_toplevel_destroy(c->toplevel);
    if (c->xdg_surface) xdg_surface_destroy(c->xdg_surface);
    if (c->surface) wl_surface_destroy(c->surface);
    if (c->dmabuf) zwp_linux_dmabuf_v1_destroy(c->dmabuf);
    if (c->wm_base) xdg_wm_base_destroy(c->wm_base);
    if (c->compositor) wl_compositor_destroy(c->compositor);
    if (c->registry) wl_registry_destroy(c->registry);
    wl_display_disconnect(c->display);
    free(c);
}
