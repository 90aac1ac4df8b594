/*
 * lamina.h — the C API of Lamina, a Core-Animation-style layer compositor for Linux
 * (EGL + OpenGL ES 3). Link with `pkg-config --cflags --libs lamina`.
 *
 * Conventions
 *  - Every object is an opaque handle with explicit reference counting: a `_create` or
 *    `_load` call returns a handle holding one reference; `lamina_retain` adds one,
 *    `lamina_release` drops one (the object goes when none is left). Releasing a handle
 *    that holds no reference any more is diagnosed (LAMINA_ERROR_RELEASED), never a crash.
 *  - Every call that can fail returns a `lamina_status`; on failure the message of what
 *    was tried and what to do is `lamina_last_error()` (per thread, until the next failing
 *    call on that thread).
 *  - Lamina's model (layers, transactions, hosts, scenes) lives on one thread: the
 *    process's main thread. A call from another thread returns LAMINA_ERROR_WRONG_THREAD.
 *  - Colours are straight (not premultiplied) RGBA in 0…1; pixel buffers are premultiplied
 *    RGBA8 or BGRA8 (Cairo's ARGB32 on little-endian), rows top to bottom.
 *  - Geometry is in points, y down; a transform is a 4×4 row-major matrix in Core
 *    Animation's convention (row vectors: p' = p · M, translation in m41, m42, m43).
 */
#ifndef LAMINA_H
#define LAMINA_H

#include <stddef.h>
#include <stdint.h>
#include <cairo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header's API: a program built against one version runs with a
 * library whose lamina_api_version() is the same. */
#define LAMINA_API_VERSION 1
#define LAMINA_VERSION "0.5.0"

typedef enum lamina_status {
    LAMINA_OK = 0,
    LAMINA_ERROR_INVALID_ARGUMENT = 1, /* a NULL handle, a value out of range, a bad size */
    LAMINA_ERROR_WRONG_THREAD = 2,     /* called off the main thread */
    LAMINA_ERROR_RELEASED = 3,         /* the handle holds no reference any more */
    LAMINA_ERROR_GPU = 4,              /* EGL/GL: no device, a lost context, a limit */
    LAMINA_ERROR_SCENE = 5,            /* a malformed scene file */
    LAMINA_ERROR_IO = 6,               /* a file that cannot be read or written */
    LAMINA_ERROR_DRAW = 7,             /* drawing or committing failed */
    LAMINA_ERROR_UNSUPPORTED = 8       /* not on this backend or system */
} lamina_status;

typedef struct lamina_point { double x, y; } lamina_point;
typedef struct lamina_size { double width, height; } lamina_size;
typedef struct lamina_rect { double x, y, width, height; } lamina_rect;
typedef struct lamina_color { double red, green, blue, alpha; } lamina_color;
typedef struct lamina_transform { double m[16]; } lamina_transform;

typedef enum lamina_pixel_format {
    LAMINA_PIXEL_RGBA8 = 0, /* bytes R, G, B, A, premultiplied */
    LAMINA_PIXEL_BGRA8 = 1  /* bytes B, G, R, A, premultiplied (Cairo's ARGB32) */
} lamina_pixel_format;

typedef enum lamina_contents_gravity {
    LAMINA_GRAVITY_CENTER = 0, LAMINA_GRAVITY_TOP, LAMINA_GRAVITY_BOTTOM, LAMINA_GRAVITY_LEFT, LAMINA_GRAVITY_RIGHT,
    LAMINA_GRAVITY_TOP_LEFT, LAMINA_GRAVITY_TOP_RIGHT, LAMINA_GRAVITY_BOTTOM_LEFT, LAMINA_GRAVITY_BOTTOM_RIGHT,
    LAMINA_GRAVITY_RESIZE, LAMINA_GRAVITY_RESIZE_ASPECT, LAMINA_GRAVITY_RESIZE_ASPECT_FILL
} lamina_contents_gravity;

typedef enum lamina_filter {
    LAMINA_FILTER_LINEAR = 0,
    LAMINA_FILTER_NEAREST = 1
} lamina_filter;

typedef struct lamina_device lamina_device;
typedef struct lamina_target lamina_target;
typedef struct lamina_layer lamina_layer;
typedef struct lamina_host lamina_host;
typedef struct lamina_scene lamina_scene;
typedef struct lamina_view lamina_view;

/* ---- Library ---------------------------------------------------------------------- */

uint32_t lamina_api_version(void);
const char *lamina_version(void);
/* The message of the last failing call on this thread (NULL when none failed). */
const char *lamina_last_error(void);
/* Handles alive (every kind): for leak checks. */
size_t lamina_live_handles(void);

/* Lamina's log: warnings it recovered from, EGL and GL failures, shader compiler logs, and
 * (at info and below) what it chose and why. Each failing call's own message is
 * lamina_last_error, not logged. By default warnings and errors go to standard error. */
typedef enum lamina_log_level {
    LAMINA_LOG_TRACE = 0, LAMINA_LOG_DEBUG, LAMINA_LOG_INFO, LAMINA_LOG_NOTICE, LAMINA_LOG_WARNING,
    LAMINA_LOG_ERROR, LAMINA_LOG_CRITICAL,
    LAMINA_LOG_OFF   /* lamina_set_log_level only: nothing is logged */
} lamina_log_level;
/* Called with each message at or above the level, on the thread that logs (a render
 * thread's too, so it must be thread-safe), maybe inside a Lamina call (do not call Lamina
 * from it); `message` lives until it returns. A message being logged on another thread
 * when the handler is replaced may still reach the old one: keep its user_data alive. */
typedef void (*lamina_log_fn)(lamina_log_level level, const char *message, void *user_data);
/* Sends the log to `handler` instead of standard error (NULL: standard error again). */
lamina_status lamina_set_log_handler(lamina_log_fn handler, void *user_data);
/* The least level logged (default LAMINA_LOG_WARNING, or $LAMINA_LOG_LEVEL); LAMINA_LOG_OFF: none. */
lamina_status lamina_set_log_level(lamina_log_level level);
/* Adds or drops a reference to any handle (device, target, layer, host, scene). */
lamina_status lamina_retain(void *handle);
lamina_status lamina_release(void *handle);

/* ---- Devices ---------------------------------------------------------------------- */

/* A device of Lamina's own. `backend`: "auto", "gbm", "device", "surfaceless", or NULL
 * for the LAMINA_BACKEND environment variable (else auto); `drm_device`: a DRM node for
 * GBM, or NULL (LAMINA_DRM_DEVICE, else every node). */
lamina_status lamina_device_create(const char *backend, const char *drm_device, lamina_device **out);
/* Adopts the host's context current on the calling thread — OpenGL ES 3, or desktop OpenGL
 * 3.3 or later (core or compatibility), made through EGL or GLX: Lamina draws with it and
 * restores the host's GL state after each pass. A context Lamina cannot draw with (ES 2,
 * desktop GL before 3.3) is LAMINA_ERROR_UNSUPPORTED. */
lamina_status lamina_device_create_adopting_current(lamina_device **out);
/* A context of Lamina's own in the share group of the host's current EGL context (textures
 * made on either side are visible to both). A GLX context cannot share with EGL: adopt it. */
lamina_status lamina_device_create_sharing_current(lamina_device **out);
/* "gbm", "device" or "surfaceless" (EGL platforms), or "adopted"/"shared" for a host's;
 * "unknown" for a handle that is not a live device (or off the main thread). */
const char *lamina_device_backend(const lamina_device *device);
/* Frees the device's GPU objects and its context now (its handle stays until released). */
lamina_status lamina_device_close(lamina_device *device);

/* ---- Targets ---------------------------------------------------------------------- */

/* A texture-backed target of width × height pixels (`scale` pixels per point: for every
 * target a normal number from 1/4096 to 4096, else LAMINA_ERROR_INVALID_ARGUMENT). */
lamina_status lamina_target_create_offscreen(lamina_device *device, uint32_t width, uint32_t height, double scale,
                                             lamina_target **out);
/* A target backed by a GBM buffer object (GBM backend only): a dma-buf. */
lamina_status lamina_target_create_gbm(lamina_device *device, uint32_t width, uint32_t height, double scale,
                                       lamina_target **out);
/* The host's framebuffer object `framebuffer` (0: the default one) of width × height pixels. */
lamina_status lamina_target_create_framebuffer(lamina_device *device, uint32_t framebuffer, uint32_t width, uint32_t height,
                                               double scale, lamina_target **out);
/* Pixels of a framebuffer: x and y from its top-left corner. */
typedef struct lamina_pixel_rect { uint32_t x, y, width, height; } lamina_pixel_rect;
/* The same, rendering only into `region` (a panel of the host's window: Lamina's viewport
 * and scissor; the rest is left alone). `bottom_row_first`: the framebuffer's first row in
 * memory is its bottom one (GL's default framebuffer and textures drawn the GL way: 1, as
 * lamina_target_create_framebuffer assumes); 0 for one whose first row is its top. */
lamina_status lamina_target_create_framebuffer_region(lamina_device *device, uint32_t framebuffer, uint32_t width, uint32_t height,
                                                      lamina_pixel_rect region, int bottom_row_first, double scale,
                                                      lamina_target **out);
/* Reads the target's pixels, premultiplied, rows top to bottom, `row_bytes` apart (at
 * least width × 4); `capacity` is the size of `pixels` in bytes. */
lamina_status lamina_target_read_pixels(lamina_target *target, lamina_pixel_format format, uint8_t *pixels, size_t row_bytes,
                                        size_t capacity);
lamina_status lamina_target_pixel_size(const lamina_target *target, uint32_t *width, uint32_t *height);
/* Writes the target's pixels to a PNG file. */
lamina_status lamina_target_write_png(lamina_target *target, const char *path);

/* ---- Layers ----------------------------------------------------------------------- */

lamina_status lamina_layer_create(lamina_layer **out);
lamina_status lamina_layer_add_sublayer(lamina_layer *layer, lamina_layer *sublayer);
lamina_status lamina_layer_insert_sublayer(lamina_layer *layer, lamina_layer *sublayer, size_t index);
lamina_status lamina_layer_remove_from_superlayer(lamina_layer *layer);
/* The number of sublayers, and one of them (a new reference: release it). */
lamina_status lamina_layer_sublayer_count(const lamina_layer *layer, size_t *count);
lamina_status lamina_layer_sublayer_at(const lamina_layer *layer, size_t index, lamina_layer **out);
/* The farthest descendant of `layer` (itself included) that contains `point`, given in the
 * coordinates of layer's superlayer (CALayer.hitTest): sublayers top-most first, hidden ones
 * skipped, none outside a masksToBounds layer's bounds. *out is a new reference (release
 * it), or NULL when nothing is hit. */
lamina_status lamina_layer_hit_test(lamina_layer *layer, lamina_point point, lamina_layer **out);
lamina_status lamina_layer_set_name(lamina_layer *layer, const char *name);

lamina_status lamina_layer_set_frame(lamina_layer *layer, lamina_rect frame);
lamina_status lamina_layer_get_frame(const lamina_layer *layer, lamina_rect *frame);
lamina_status lamina_layer_set_bounds(lamina_layer *layer, lamina_rect bounds);
lamina_status lamina_layer_get_bounds(const lamina_layer *layer, lamina_rect *bounds);
lamina_status lamina_layer_set_position(lamina_layer *layer, lamina_point position);
lamina_status lamina_layer_get_position(const lamina_layer *layer, lamina_point *position);
lamina_status lamina_layer_set_anchor_point(lamina_layer *layer, lamina_point anchor);
lamina_status lamina_layer_set_anchor_point_z(lamina_layer *layer, double z);
lamina_status lamina_layer_set_z_position(lamina_layer *layer, double z);
lamina_status lamina_layer_set_transform(lamina_layer *layer, const lamina_transform *transform);
lamina_status lamina_layer_get_transform(const lamina_layer *layer, lamina_transform *transform);
lamina_status lamina_layer_set_sublayer_transform(lamina_layer *layer, const lamina_transform *transform);
lamina_status lamina_layer_set_opacity(lamina_layer *layer, double opacity);
lamina_status lamina_layer_get_opacity(const lamina_layer *layer, double *opacity);
/* More getters (with lamina_layer_presentation: the values shown now). A layer without a
 * background colour gives transparent black. */
lamina_status lamina_layer_get_corner_radius(const lamina_layer *layer, double *radius);
lamina_status lamina_layer_get_border_width(const lamina_layer *layer, double *width);
lamina_status lamina_layer_get_shadow_opacity(const lamina_layer *layer, double *opacity);
lamina_status lamina_layer_get_background_color(const lamina_layer *layer, lamina_color *color);
lamina_status lamina_layer_set_hidden(lamina_layer *layer, int hidden);
lamina_status lamina_layer_set_double_sided(lamina_layer *layer, int double_sided);
lamina_status lamina_layer_set_allows_group_opacity(lamina_layer *layer, int allows);
/* `color` NULL: no background. */
lamina_status lamina_layer_set_background_color(lamina_layer *layer, const lamina_color *color);
lamina_status lamina_layer_set_border_width(lamina_layer *layer, double width);
lamina_status lamina_layer_set_border_color(lamina_layer *layer, lamina_color color);
lamina_status lamina_layer_set_corner_radius(lamina_layer *layer, double radius);
lamina_status lamina_layer_set_masks_to_bounds(lamina_layer *layer, int masks);
/* The corners cornerRadius rounds (CACornerMask; min y is the top, y down): an OR of these;
 * LAMINA_CORNERS_ALL by default. Bits past the four are an error. */
typedef enum lamina_corner {
    LAMINA_CORNER_MIN_X_MIN_Y = 1, LAMINA_CORNER_MAX_X_MIN_Y = 2, LAMINA_CORNER_MIN_X_MAX_Y = 4, LAMINA_CORNER_MAX_X_MAX_Y = 8,
    LAMINA_CORNERS_ALL = 15
} lamina_corner;
lamina_status lamina_layer_set_masked_corners(lamina_layer *layer, unsigned corners);
lamina_status lamina_layer_get_masked_corners(const lamina_layer *layer, unsigned *corners);
/* The curve of the rounded corners (CALayerCornerCurve; docs/effects.md, "Corner shapes"). */
typedef enum lamina_corner_curve { LAMINA_CORNER_CURVE_CIRCULAR = 0, LAMINA_CORNER_CURVE_CONTINUOUS } lamina_corner_curve;
lamina_status lamina_layer_set_corner_curve(lamina_layer *layer, lamina_corner_curve curve);
lamina_status lamina_layer_get_corner_curve(const lamina_layer *layer, lamina_corner_curve *curve);
lamina_status lamina_layer_set_opaque(lamina_layer *layer, int opaque);

/* Effects (docs/effects.md). The shadow: colour, opacity (0 … 1: none at 0), offset in
 * points (y down) and radius (σ, points); it follows the layer's shape, or its alpha and its
 * sublayers' when it has no background. */
lamina_status lamina_layer_set_shadow(lamina_layer *layer, lamina_color color, double opacity, lamina_size offset, double radius);
/* The layer's mask: `mask`'s alpha (a layer of no tree) shows the layer; NULL: none. */
lamina_status lamina_layer_set_mask(lamina_layer *layer, lamina_layer *mask);
/* How the layer is composited over what is under it. */
typedef enum lamina_blend_mode {
    LAMINA_BLEND_NORMAL = 0, LAMINA_BLEND_MULTIPLY, LAMINA_BLEND_SCREEN, LAMINA_BLEND_OVERLAY, LAMINA_BLEND_DARKEN,
    LAMINA_BLEND_LIGHTEN, LAMINA_BLEND_DIFFERENCE, LAMINA_BLEND_PLUS_LIGHTER
} lamina_blend_mode;
lamina_status lamina_layer_set_blend_mode(lamina_layer *layer, lamina_blend_mode mode);
/* What lies under the layer, blurred (σ `radius` points) inside its shape; 0: no blur. */
lamina_status lamina_layer_set_backdrop_blur(lamina_layer *layer, double radius);
/* ---- Explicit animations (docs/animations.md) ------------------------------------- */

typedef enum lamina_animation_kind {
    LAMINA_ANIMATION_BASIC = 0,   /* from → to (or by) over the duration, through the timing function */
    LAMINA_ANIMATION_KEYFRAME,    /* through `values` at `key_times` */
    LAMINA_ANIMATION_SPRING,      /* from → to as a damped spring; without a duration cut at 0.25 s (Core Animation) */
    LAMINA_ANIMATION_GROUP        /* `children` together, on the group's timing */
} lamina_animation_kind;
typedef enum lamina_timing_function {
    LAMINA_TIMING_DEFAULT = 0, LAMINA_TIMING_LINEAR, LAMINA_TIMING_EASE_IN, LAMINA_TIMING_EASE_OUT,
    LAMINA_TIMING_EASE_IN_EASE_OUT,
    LAMINA_TIMING_BEZIER          /* the cubic Bézier of `bezier` (x1, y1, x2, y2) */
} lamina_timing_function;
typedef enum lamina_fill_mode {
    LAMINA_FILL_REMOVED = 0, LAMINA_FILL_FORWARDS, LAMINA_FILL_BACKWARDS, LAMINA_FILL_BOTH
} lamina_fill_mode;
/* Called on the main thread when the animation stops: `finished` 0 when it was removed or
 * replaced before its end. */
typedef void (*lamina_animation_done_fn)(int finished, void *user_data);
/* An animation, described (lamina_animation_init fills in the defaults; then set what you
 * need). Values are doubles, `components` per value: 1 for a number (opacity,
 * "transform.rotation.z", …), 2 for a point or size, 4 for a rect or colour (r, g, b, a),
 * 16 for a transform (as lamina_transform). Lists: a gradient's "colors" take 4 per colour
 * (1 to 16 colours), its "locations" one per stop (1 to 16). A shape layer's "path" takes
 * the points of a path with the operations of the layer's current path
 * (lamina_shape_layer_set_path), x and y of each point in order: components = 2 × its
 * point count; the path morphs point by point (CAShapeLayer's "same number of points"). */
typedef struct lamina_animation {
    lamina_animation_kind kind;
    const char *key_path;                 /* the animated property (not for a group) */
    size_t components;
    const double *from, *to, *by;         /* basic and spring: NULL = the layer's value */
    const double *values;                 /* keyframe: value_count values */
    size_t value_count;
    const double *key_times;              /* keyframe: value_count times 0 … 1 (NULL: evenly) */
    double duration;                      /* seconds (default 0.25) */
    double delay;                         /* seconds from when it is added (≤ 0: it starts at the commit) */
    double speed, repeat_count;           /* default 1 and 0 */
    int autoreverses;
    lamina_fill_mode fill_mode;
    int removed_on_completion;            /* default 1 */
    lamina_timing_function timing_function;
    double bezier[4];
    double mass, stiffness, damping, initial_velocity;   /* spring: default 1, 100, 10, 0 */
    const struct lamina_animation *children;             /* group: child_count animations */
    size_t child_count;
    lamina_animation_done_fn done;        /* NULL: none */
    void *done_user_data;
} lamina_animation;
lamina_status lamina_animation_init(lamina_animation *animation, lamina_animation_kind kind, const char *key_path);
/* Adds a copy of `animation` under `key` (NULL: a key of its own), replacing the one there;
 * it starts at the next commit (plus its delay). A key path that cannot be animated, values
 * of the wrong size or unusable timing are LAMINA_ERROR_INVALID_ARGUMENT. */
lamina_status lamina_layer_add_animation(lamina_layer *layer, const lamina_animation *animation, const char *key);
lamina_status lamina_layer_remove_animation(lamina_layer *layer, const char *key);
lamina_status lamina_layer_remove_all_animations(lamina_layer *layer);
/* A transition (CATransition, docs/animations.md): make the layer's changes (sublayers,
 * colours, contents) in the same transaction; its old picture turns into the new one over
 * `duration` seconds (≤ 0: the transaction's animation duration, 0.25 s by default) — a
 * fade, or the new picture pushing the old out, moving in over it, or the old revealing it,
 * from `subtype`'s side (origin at the top left: FROM_TOP moves down). `timing` is one of
 * LAMINA_TIMING_DEFAULT … LAMINA_TIMING_EASE_IN_EASE_OUT. `key` NULL: "transition" (a new
 * one replaces one running). */
typedef enum lamina_transition_type {
    LAMINA_TRANSITION_FADE = 0, LAMINA_TRANSITION_PUSH, LAMINA_TRANSITION_MOVE_IN, LAMINA_TRANSITION_REVEAL
} lamina_transition_type;
typedef enum lamina_transition_subtype {
    LAMINA_TRANSITION_FROM_LEFT = 0, LAMINA_TRANSITION_FROM_RIGHT, LAMINA_TRANSITION_FROM_TOP, LAMINA_TRANSITION_FROM_BOTTOM
} lamina_transition_subtype;
lamina_status lamina_layer_add_transition(lamina_layer *layer, lamina_transition_type type, lamina_transition_subtype subtype,
                                          double duration, lamina_timing_function timing, const char *key);
/* Whether an animation runs under `key`. */
lamina_status lamina_layer_has_animation(const lamina_layer *layer, const char *key, int *has);

/* The layer as it is shown now, animations applied (CALayer.presentation): a new layer of no
 * tree — read it with the getters; changing it changes nothing shown. Release it. */
lamina_status lamina_layer_presentation(lamina_layer *layer, lamina_layer **out);
lamina_status lamina_layer_set_contents_rect(lamina_layer *layer, lamina_rect rect);
lamina_status lamina_layer_set_contents_center(lamina_layer *layer, lamina_rect rect);
lamina_status lamina_layer_set_contents_gravity(lamina_layer *layer, lamina_contents_gravity gravity);
lamina_status lamina_layer_set_contents_scale(lamina_layer *layer, double scale);
lamina_status lamina_layer_set_needs_display_on_bounds_change(lamina_layer *layer, int redraw);
/* How contents are sampled when drawn smaller (minification) and larger (magnification). */
lamina_status lamina_layer_set_filters(lamina_layer *layer, lamina_filter minification, lamina_filter magnification);
/* The layer's media timing (`CAMediaTiming`): its time is its superlayer's mapped by
 * (t − begin_time) · speed + time_offset; speed 0 pauses its animations and its sublayers'. */
lamina_status lamina_layer_set_timing(lamina_layer *layer, double begin_time, double speed, double time_offset);

/* Contents: pixels copied now (premultiplied), a PNG file, a texture of the device's
 * context (borrowed: keep it alive while shown), or a dma-buf (imported from a duplicate
 * of `fd`: the caller keeps, and closes, its own; GBM and device backends with
 * EGL_EXT_image_dma_buf_import). lamina_layer_clear_contents: no contents. */
lamina_status lamina_layer_set_contents_pixels(lamina_layer *layer, const uint8_t *pixels, uint32_t width, uint32_t height,
                                               size_t row_bytes, lamina_pixel_format format);
lamina_status lamina_layer_set_contents_png(lamina_layer *layer, const char *path);
lamina_status lamina_layer_set_contents_texture(lamina_layer *layer, lamina_device *device, uint32_t gl_texture, uint32_t width,
                                                uint32_t height);
lamina_status lamina_layer_set_contents_dmabuf(lamina_layer *layer, lamina_device *device, int fd, uint32_t width, uint32_t height,
                                               uint32_t drm_fourcc, uint32_t stride, uint32_t offset, uint64_t modifier);
lamina_status lamina_layer_clear_contents(lamina_layer *layer);
/* Tells the renderers that the pixels of a texture shown as contents changed. */
lamina_status lamina_layer_contents_did_change(lamina_layer *layer);

/* Drawing: `draw` is called on the main thread when the layer is displayed, with a Cairo
 * context set up in points (bounds coordinates, y down) and clipped to `dirty`; draw only
 * there. A draw callback only draws: committing, flushing, dispatching the run loop or
 * displaying from inside it returns LAMINA_ERROR_DRAW. Callbacks must return normally
 * (no C++ exception or Rust panic may unwind through Lamina). `destroy` (may be NULL) is
 * called with `user_data` when the callback is replaced by another (not by the same
 * user_data and destroy) or the layer goes — after the API call that caused it returns. */
typedef void (*lamina_draw_fn)(lamina_layer *layer, cairo_t *cr, lamina_rect dirty, void *user_data);
typedef void (*lamina_destroy_fn)(void *user_data);
lamina_status lamina_layer_set_draw_callback(lamina_layer *layer, lamina_draw_fn draw, void *user_data, lamina_destroy_fn destroy);
lamina_status lamina_layer_set_needs_display(lamina_layer *layer);
lamina_status lamina_layer_set_needs_display_in_rect(lamina_layer *layer, lamina_rect rect);
lamina_status lamina_layer_display_if_needed(lamina_layer *layer);
/* Draws now: when it returns, the layer's backing store holds the new pixels
 * (lamina_flush puts them on the targets). */
lamina_status lamina_layer_display_now(lamina_layer *layer);
/* How many times the layer's content was drawn. */
lamina_status lamina_layer_display_count(const lamina_layer *layer, uint64_t *count);

/* ---- Your own GPU code: GL layers, shader layers and effects (docs/gpu-content.md) -- */

/* A layer drawn with your own OpenGL ES calls (CAOpenGLLayer, GLKView). `draw` runs where
 * the compositor's GL context lives — the main thread, or the host's render thread — with
 * that context current and `framebuffer` bound (draw and read), the viewport the whole
 * width×height drawable (the layer's bounds × contentsScale) and GL's default state
 * otherwise; pixels premultiplied, row 0 at the bottom. `dirty` is what to draw (GL window
 * coordinates). It runs on demand (first display, lamina_layer_set_needs_display, a resize)
 * or at every frame while asynchronous. It must not call Lamina, and must return normally.
 * `destroy` as for lamina_layer_set_draw_callback. */
typedef void (*lamina_gl_draw_fn)(uint32_t framebuffer, int32_t width, int32_t height, lamina_pixel_rect dirty, void *user_data);
lamina_status lamina_gl_layer_create(lamina_layer **out);
lamina_status lamina_layer_set_gl_draw_callback(lamina_layer *layer, lamina_gl_draw_fn draw, void *user_data, lamina_destroy_fn destroy);
/* Draw at every frame the host composites (CAOpenGLLayer.isAsynchronous). */
lamina_status lamina_gl_layer_set_asynchronous(lamina_layer *layer, int on);
/* depth_stencil: 0 none, 1 a 24-bit depth buffer, 2 depth 24 + stencil 8; samples 1 or 4. */
lamina_status lamina_gl_layer_set_drawable_options(lamina_layer *layer, int depth_stencil, int samples);
/* How many times the layer's GL code ran. */
lamina_status lamina_gl_layer_draw_count(const lamina_layer *layer, uint64_t *count);

/* A layer whose content is a GLSL ES 3.00 fragment shader over its bounds (inputs:
 * in vec2 lamina_uv, uniform vec2 lamina_size, uniform float lamina_time; one out vec4,
 * premultiplied). A shader that does not compile fails the commit that shows it. */
lamina_status lamina_shader_layer_create(const char *fragment_source, lamina_layer **out);
/* Sets a uniform: `count` floats — 1 a float, 2 to 4 a vec2 to vec4, 9 a mat3, 16 a mat4
 * (column-major). Values must be finite. It animates implicitly, as any property. */
lamina_status lamina_shader_layer_set_uniform(lamina_layer *layer, const char *name, const float *values, size_t count);
/* Draw at every frame (a shader reading lamina_time). */
lamina_status lamina_shader_layer_set_animating(lamina_layer *layer, int on);
/* A fragment shader over the layer's rendered image (the layer and its sublayers as one),
 * reading it through the GLSL function lamina_sample, given a uv; NULL removes it. The quad drawn, and the
 * damage, grow by max_sample_dx/dy target points on each side. */
lamina_status lamina_layer_set_shader_effect(lamina_layer *layer, const char *fragment_source, double max_sample_dx, double max_sample_dy);
lamina_status lamina_layer_set_shader_effect_uniform(lamina_layer *layer, const char *name, const float *values, size_t count);

/* ---- Layer kinds: shapes, gradients, text, replicators (docs/effects.md) ------------- */
/* Each kind's functions refuse a layer of another kind (LAMINA_ERROR_INVALID_ARGUMENT). The
 * layer functions above apply to them all. */

/* A shape layer (CAShapeLayer): a path filled and stroked, rasterised at its on-screen scale.
 * Its fill is opaque black by default, its stroke none. */
lamina_status lamina_shape_layer_create(lamina_layer **out);
/* The path's operations, each taking its points from `points` in order (bounds coordinates):
 * MOVE and LINE one point, QUAD two (control, end), CUBIC three (control 1, control 2, end),
 * CLOSE none; the counts must agree. op_count 0: no path. At most 100000 operations. */
typedef enum lamina_path_op { LAMINA_PATH_MOVE = 0, LAMINA_PATH_LINE, LAMINA_PATH_QUAD, LAMINA_PATH_CUBIC, LAMINA_PATH_CLOSE } lamina_path_op;
lamina_status lamina_shape_layer_set_path(lamina_layer *layer, const lamina_path_op *ops, size_t op_count,
                                          const lamina_point *points, size_t point_count);
/* NULL: not filled / not stroked. Both animate (key paths "fillColor", "strokeColor"). */
lamina_status lamina_shape_layer_set_fill_color(lamina_layer *layer, const lamina_color *color);
lamina_status lamina_shape_layer_set_stroke_color(lamina_layer *layer, const lamina_color *color);
/* Points, ≥ 0 (1 by default); animates ("lineWidth"). */
lamina_status lamina_shape_layer_set_line_width(lamina_layer *layer, double width);
typedef enum lamina_line_cap { LAMINA_LINE_CAP_BUTT = 0, LAMINA_LINE_CAP_ROUND, LAMINA_LINE_CAP_SQUARE } lamina_line_cap;
typedef enum lamina_line_join { LAMINA_LINE_JOIN_MITER = 0, LAMINA_LINE_JOIN_ROUND, LAMINA_LINE_JOIN_BEVEL } lamina_line_join;
/* The miter limit is ≥ 1 (10 by default). */
lamina_status lamina_shape_layer_set_line_style(lamina_layer *layer, lamina_line_cap cap, lamina_line_join join, double miter_limit);
/* Dash lengths (points; count 0: a solid line) and the phase ("lineDashPhase" animates). */
lamina_status lamina_shape_layer_set_line_dash(lamina_layer *layer, const double *pattern, size_t count, double phase);
/* Non-zero: the even-odd fill rule (the default is non-zero winding). */
lamina_status lamina_shape_layer_set_even_odd(lamina_layer *layer, int even_odd);
/* The part of the path stroked, fractions of its length in 0 … 1 ("strokeStart", "strokeEnd"
 * animate: a progress ring). */
lamina_status lamina_shape_layer_set_stroke_range(lamina_layer *layer, double start, double end);
lamina_status lamina_shape_layer_get_stroke_range(const lamina_layer *layer, double *start, double *end);

/* A gradient layer (CAGradientLayer), drawn on the GPU inside the layer's (rounded) shape. */
typedef enum lamina_gradient_type { LAMINA_GRADIENT_AXIAL = 0, LAMINA_GRADIENT_RADIAL, LAMINA_GRADIENT_CONIC } lamina_gradient_type;
lamina_status lamina_gradient_layer_create(lamina_layer **out);
/* 0 to 16 colours; `locations` NULL spreads them evenly, else one per colour in 0 … 1, not decreasing. */
lamina_status lamina_gradient_layer_set_colors(lamina_layer *layer, const lamina_color *colors, const double *locations, size_t count);
/* Unit coordinates of the bounds, y down ((0.5, 0) → (0.5, 1) by default); they animate
 * ("startPoint", "endPoint") on the GPU. */
lamina_status lamina_gradient_layer_set_points(lamina_layer *layer, lamina_point start, lamina_point end);
lamina_status lamina_gradient_layer_set_type(lamina_layer *layer, lamina_gradient_type type);

/* A text layer (CATextLayer, Pango): the string laid out in the bounds. */
typedef enum lamina_text_alignment {
    LAMINA_TEXT_ALIGN_NATURAL = 0, LAMINA_TEXT_ALIGN_LEFT, LAMINA_TEXT_ALIGN_RIGHT, LAMINA_TEXT_ALIGN_CENTER, LAMINA_TEXT_ALIGN_JUSTIFIED
} lamina_text_alignment;
typedef enum lamina_truncation {
    LAMINA_TRUNCATE_NONE = 0, LAMINA_TRUNCATE_START, LAMINA_TRUNCATE_MIDDLE, LAMINA_TRUNCATE_END
} lamina_truncation;
lamina_status lamina_text_layer_create(lamina_layer **out);
/* UTF-8 (invalid sequences show as U+FFFD), at most 10⁶ bytes; NULL: none. */
lamina_status lamina_text_layer_set_string(lamina_layer *layer, const char *utf8);
/* A fontconfig family ("" for the default, DejaVu Sans) and the size in points (36 by default). */
lamina_status lamina_text_layer_set_font(lamina_layer *layer, const char *family, double size);
lamina_status lamina_text_layer_set_foreground_color(lamina_layer *layer, lamina_color color);
lamina_status lamina_text_layer_set_alignment(lamina_layer *layer, lamina_text_alignment alignment);
lamina_status lamina_text_layer_set_wrapped(lamina_layer *layer, int wrapped);
lamina_status lamina_text_layer_set_truncation(lamina_layer *layer, lamina_truncation truncation);

/* A replicator layer (CAReplicatorLayer): its sublayers drawn instance_count times, each
 * instance through the instance transform once more, its colour multiplied by the instance
 * colour plus k × the offsets. */
lamina_status lamina_replicator_layer_create(lamina_layer **out);
/* 0 to 10000 (1 by default). */
lamina_status lamina_replicator_layer_set_instance_count(lamina_layer *layer, size_t count);
lamina_status lamina_replicator_layer_set_instance_transform(lamina_layer *layer, const lamina_transform *transform);
lamina_status lamina_replicator_layer_set_instance_color(lamina_layer *layer, lamina_color color, double red_offset,
                                                         double green_offset, double blue_offset, double alpha_offset);
/* Seconds: instance k shows the sublayers' animations k × delay later (CAReplicatorLayer.instanceDelay). */
lamina_status lamina_replicator_layer_set_instance_delay(lamina_layer *layer, double seconds);

/* ---- Hosts: a layer tree on a target ---------------------------------------------- */

/* Every commit that changes the tree of `root` (a layer without a superlayer) composites
 * it into `target`, cleared to `background` first (NULL: over what the target holds — a
 * host's frame). */
lamina_status lamina_host_create(lamina_layer *root, lamina_target *target, const lamina_color *background, lamina_host **out);
/* Composites at every commit even when nothing changed (a host redrawing its frame). */
lamina_status lamina_host_set_composites_every_frame(lamina_host *host, int every_frame);
/* The last frame's draw calls and bytes uploaded. */
lamina_status lamina_host_last_frame(const lamina_host *host, uint64_t *draw_calls, uint64_t *bytes_uploaded);
/* Stops compositing (also done when the handle goes). */
lamina_status lamina_host_detach(lamina_host *host);
/* Retained mode: a host on an offscreen target composites only when its tree changes; each
 * frame, draw its last picture into `destination` (the host's framebuffer target) in `rect`
 * (points; NULL: all of it) — one quad. */
lamina_status lamina_host_present(lamina_host *host, lamina_target *destination, const lamina_rect *rect);
/* The GL name of the host's output texture (GL_TEXTURE_2D, premultiplied, top row first;
 * stored as RGBA8, or as BGRA8 on a software rasterizer, which draws into that faster —
 * it samples the same either way), for a host sampling it itself (in the same or a shared
 * context). */
lamina_status lamina_host_texture(lamina_host *host, uint32_t *texture);

/* ---- Views and windows: input through hit testing and the responder chain --------- */
/* (docs/c-api.md "Views and input"; LaminaUI's View and Window, UIKit's model.) A window is
 * the root view on a target, compositing as a host does; views are rectangles in it, each
 * backed by a layer (lamina_view_get_layer: the layer functions style it, its draw callback
 * draws it). The host hands the window its input; the window hit-tests and delivers each
 * event to a view's event handler, which returns nonzero when it handled it, 0 to pass it
 * to the next responder (the superview, up to the window). Touches and pointer buttons go
 * to the view they began in until they end; keys to the first responder; text to the first
 * responder; pointer moves and scrolls to the view under the pointer; entered/exited to each
 * view the pointer came into or left (not passed on). */
typedef enum lamina_event_type {
    LAMINA_EVENT_TOUCH_BEGAN = 0, LAMINA_EVENT_TOUCH_MOVED, LAMINA_EVENT_TOUCH_ENDED, LAMINA_EVENT_TOUCH_CANCELLED,
    LAMINA_EVENT_KEY_DOWN, LAMINA_EVENT_KEY_REPEAT, LAMINA_EVENT_KEY_UP, LAMINA_EVENT_KEY_CANCELLED,
    LAMINA_EVENT_TEXT,               /* typed text, to the first responder */
    LAMINA_EVENT_DELETE_BACKWARD,    /* Backspace nobody handled, to the first responder */
    LAMINA_EVENT_POINTER_ENTERED, LAMINA_EVENT_POINTER_MOVED, LAMINA_EVENT_POINTER_EXITED,
    LAMINA_EVENT_SCROLL
} lamina_event_type;
enum {
    LAMINA_MODIFIER_SHIFT = 1 << 0, LAMINA_MODIFIER_CONTROL = 1 << 1, LAMINA_MODIFIER_ALT = 1 << 2,
    LAMINA_MODIFIER_SUPER = 1 << 3, LAMINA_MODIFIER_CAPS_LOCK = 1 << 4
};
typedef struct lamina_event {
    lamina_event_type type;
    double timestamp;            /* seconds, on the host's clock */
    lamina_point location;       /* touches, pointer, scroll: in the receiving view's points */
    int touch_id;                /* touches: the host's identifier of the finger or pointer */
    int key_code;                /* keys: the USB HID usage (keyboard page: 0x04 = A, 0x28 = Return) */
    int repeat_count;            /* KEY_REPEAT: auto-repeats so far */
    unsigned modifiers;          /* LAMINA_MODIFIER_* held */
    const char *text;            /* keys: the characters the key types (UTF-8, maybe ""); TEXT: the
                                    text. Valid during the call. */
    double scroll_dx, scroll_dy; /* SCROLL: points */
} lamina_event;
/* `view` is the receiving view (a reference held for the call). Return nonzero: handled. */
typedef int (*lamina_event_fn)(lamina_view *view, const lamina_event *event, void *user_data);

/* A window covering `target` (its size in points), cleared to `background` (NULL: over what
 * the target holds). It composites at each commit, as a host (lamina_window_get_host gives
 * that host: frame requests, retained mode). Releasing its last reference detaches it. */
lamina_status lamina_window_create(lamina_target *target, const lamina_color *background, lamina_view **out);
/* The window's host (a new reference; releasing it leaves the window compositing). */
lamina_status lamina_window_get_host(lamina_view *window, lamina_host **out);
/* Moves the window to another target (the host's framebuffer was re-made or resized): its
 * size becomes the target's, its subviews are laid out again, the next commit composites
 * there only. The old target may be released once this returns. */
lamina_status lamina_window_set_target(lamina_view *window, lamina_target *target);
lamina_status lamina_view_create(lamina_rect frame, lamina_view **out);
/* Adds `subview` on top of the view's subviews (moved from where it was). */
lamina_status lamina_view_add_subview(lamina_view *view, lamina_view *subview);
lamina_status lamina_view_remove_from_superview(lamina_view *view);
lamina_status lamina_view_set_frame(lamina_view *view, lamina_rect frame);
/* The view's layer (a new reference): its colours, corners, contents, draw callback. */
lamina_status lamina_view_get_layer(lamina_view *view, lamina_layer **out);
/* NULL removes it. `destroy` (may be NULL) gets `user_data` when the handler is replaced
 * or the view goes. A window takes no handler (add a view covering it). */
lamina_status lamina_view_set_event_handler(lamina_view *view, lamina_event_fn handler, void *user_data, lamina_destroy_fn destroy);
/* 0: the view and its subviews are not hit (events go to what lies under them). */
lamina_status lamina_view_set_user_interaction_enabled(lamina_view *view, int enabled);
/* Whether the view may become first responder (0 by default). */
lamina_status lamina_view_set_accepts_first_responder(lamina_view *view, int accepts);
/* *became: whether it is the first responder now (it must be in a window and accept). */
lamina_status lamina_view_become_first_responder(lamina_view *view, int *became);
lamina_status lamina_view_resign_first_responder(lamina_view *view);
/* The deepest view under `point` (the view's points; hidden, transparent and
 * non-interactive views skipped): a new reference, or NULL when none. */
lamina_status lamina_view_hit_test(lamina_view *view, lamina_point point, lamina_view **out);
/* Input, in window points. A touch (or pointer button, say id 0) began, moved, ended or was
 * cancelled: LAMINA_EVENT_TOUCH_BEGAN … LAMINA_EVENT_TOUCH_CANCELLED. */
lamina_status lamina_window_send_touch(lamina_view *window, int touch_id, lamina_event_type phase, lamina_point location, double timestamp);
/* The pointer moved (inside 1) or left the window (inside 0): entered/exited, then moved —
 * or, with a button held (a touch began with the same id), TOUCH_MOVED to its view. */
lamina_status lamina_window_send_pointer(lamina_view *window, int touch_id, int inside, lamina_point location, double timestamp);
/* A scroll of (dx, dy) points at `location` (NULL: where the pointer is). */
lamina_status lamina_window_send_scroll(lamina_view *window, double dx, double dy, const lamina_point *location, double timestamp);
/* A key went down (LAMINA_EVENT_KEY_DOWN; again while down: a repeat), up (KEY_UP) or was
 * cancelled; `characters` NULL: a US layout's. */
lamina_status lamina_window_send_key(lamina_view *window, lamina_event_type phase, int key_code, unsigned modifiers,
                                     const char *characters, double timestamp);
/* Typed text (UTF-8) for the first responder. */
lamina_status lamina_window_send_text(lamina_view *window, const char *text, double timestamp);
/* The window lost the keyboard: every key down is cancelled. */
lamina_status lamina_window_cancel_keys(lamina_view *window, double timestamp);

/* ---- Transactions and the run loop ------------------------------------------------ */

lamina_status lamina_transaction_begin(void);
/* Closes an explicit transaction; the outermost one commits (layout, display, composite). */
lamina_status lamina_transaction_commit(void);
/* Commits now what is pending: when it returns, the pixels are on the targets. Inside an
 * explicit transaction it does nothing: the outermost lamina_transaction_commit commits. */
lamina_status lamina_flush(void);
/* Implicit animations: a change to a layer of a rendered tree animates (0.25 s) unless
 * actions are disabled — for the current transaction, or by default for every one (a host
 * that sets its layers every frame itself). */
lamina_status lamina_transaction_set_disable_actions(int disable);
lamina_status lamina_set_actions_disabled_by_default(int disabled);
lamina_status lamina_transaction_set_animation_duration(double seconds);
/* The run loop's file descriptor: poll it for POLLIN in the host's own loop, and call
 * lamina_run_loop_dispatch() when it is readable (or once per frame). */
lamina_status lamina_run_loop_fd(int *fd);
/* One turn of Lamina's loop (timers, posted work, the end-of-turn commit). Never waits. */
lamina_status lamina_run_loop_dispatch(void);
/* Milliseconds until Lamina's loop has work (0: now; -1: none scheduled). */
lamina_status lamina_run_loop_timeout(int *milliseconds);

/* Frame requests, for a host that owns its frame clock (gtk_gl_area_queue_render,
 * QWindow::requestUpdate, wl_surface.frame): `callback` is called on the main thread when
 * Lamina wants a frame — a layer changed, a layer needs display or layout, tiles arrived,
 * an animation runs. Schedule a frame there; in the frame, optionally
 * lamina_set_frame_time, then lamina_flush. Requests coalesce until the next commit; a
 * commit that leaves an animation running asks again; nothing changes, nothing is asked.
 * It is called as the Lamina call that asked returns; it may call Lamina but not commit:
 * lamina_flush, lamina_transaction_commit and lamina_run_loop_dispatch from it are
 * LAMINA_ERROR_UNSUPPORTED (a commit there would ask again at once while an animation runs).
 * NULL stops them. */
typedef void (*lamina_frame_request_fn)(void *user_data);
lamina_status lamina_set_frame_request_callback(lamina_frame_request_fn callback, void *user_data);
/* Frame requests made so far. */
lamina_status lamina_frame_request_count(uint64_t *count);
/* The time animations are evaluated at from now on: the host's frame (presentation) time,
 * in seconds of CLOCK_MONOTONIC. NaN goes back to Lamina's own clock. */
lamina_status lamina_set_frame_time(double seconds);

/* ---- Scene files (docs/scene-format.md) ------------------------------------------- */

lamina_status lamina_scene_load(const char *path, lamina_scene **out);
/* Renders the scene, at its own size and scale, `time` seconds in (its animations
 * evaluated then), into a PNG file. */
lamina_status lamina_scene_render_png(lamina_scene *scene, lamina_device *device, double time, const char *png_path);
/* The scene's root layer (a new reference). */
lamina_status lamina_scene_root_layer(const lamina_scene *scene, lamina_layer **out);

#ifdef __cplusplus
}
#endif

#endif /* LAMINA_H */
