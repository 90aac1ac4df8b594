/*
 * The C API fuzzer: seeded random sequences of lamina_* calls, with valid, released,
 * wrong-kind, NULL and garbage handles, extreme numbers (NaN, ±∞, ±1e308, 1e-308,
 * subnormals, −0, huge sizes), and callbacks that call Lamina again (draw callbacks, frame
 * requests, completions, the log handler). Whatever the calls, the process must not end
 * through a signal or hang: Tools/capi-fuzz.sh runs many seeds, a batch of them in each
 * process, with a time limit, and fails on any signal or time-out (re-running a failed
 * batch's seeds one per process to name the failing ones). Errors are expected and ignored.
 *
 *   fuzz SEED [CALLS] [COUNT]     (CALLS: 300 by default; COUNT: 1)
 *
 * runs the sequences of seeds SEED … SEED+COUNT-1 one after another in this process
 * (`fuzz SEED CALLS` runs one: a failing seed reproduces alone so). Each sequence starts
 * from a clean fuzzer: its own seed, an empty handle pool, Lamina's global settings back
 * to their defaults (log, frame requests, frame time, actions) and a device of its own.
 * It ends with lamina_flush, then a clean-up that is the same whatever COUNT: its
 * callbacks made inert (the layers, views and animations it leaves behind cannot call into
 * a later sequence), its explicit transactions closed, its hosts and windows detached, its
 * device closed and released, and a last lamina_flush. Its other handles stay (the pool
 * holds released and wrong-kind values on purpose: not released), so a sequence makes the
 * same calls in a batch as alone unless what an earlier one left inside Lamina changes
 * what Lamina does. With COUNT > 1 the fuzzer prints "fuzz: seed N" to standard output
 * (flushed) as each sequence starts: after a crash or a hang, the last one names the
 * sequence that was running.
 *
 * Test hooks of the driver's failure detection (never defined in normal builds):
 * -DFUZZ_CRASH_SEED=N aborts at the start of seed N's sequence; -DFUZZ_HANG_SEED=N
 * sleeps there forever; -DFUZZ_BATCH_CRASH_SEED=N aborts there only when an earlier
 * sequence ran in the same process (a failure no seed reproduces alone).
 */
#define _POSIX_C_SOURCE 200809L
#include <lamina.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t state;
static uint64_t next(void) {   /* splitmix64 */
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int below(int n) { return (int)(next() % (uint64_t)n); }

static double number(void) {
    static const double odd[] = {NAN, INFINITY, -INFINITY, 1e308, -1e308, 1e-308, 4.9e-324, -0.0, 0, 1, -1, 0.5, 2,
                                 1e6, -1e6, 1e19, 16, 4096, 1.0 / 4096, 1e-7, 3.0e38, 65536};
    switch (below(4)) {
    case 0: return odd[below((int)(sizeof odd / sizeof odd[0]))];
    case 1: return (double)below(400) - 100;
    case 2: return (double)(next() % 1000) / 999.0;
    default: { double d; uint64_t bits = next(); memcpy(&d, &bits, sizeof d); return d; }   /* any bit pattern */
    }
}
static uint32_t size(void) {
    static const uint32_t odd[] = {0, 1, 2, 7, 64, 100, 16384, 16385, 1u << 20, UINT32_MAX};
    return below(3) ? (uint32_t)below(120) + 1 : odd[below((int)(sizeof odd / sizeof odd[0]))];
}
static lamina_rect rect(void) { return (lamina_rect){number(), number(), number(), number()}; }
static lamina_point point(void) { return (lamina_point){number(), number()}; }
static lamina_color color(void) { return (lamina_color){number(), number(), number(), number()}; }

/* Handles: live ones, released ones (kept as dangling values), wrong kinds, garbage, NULL. */
#define POOL 24
static void *pool[POOL];
static int count = 0;
static lamina_device *device;
static void keep(void *h) { if (h) { if (count < POOL) pool[count++] = h; else pool[below(POOL)] = h; } }
static void *any(void) {
    switch (below(10)) {
    case 0: return NULL;
    case 1: return (void *)(uintptr_t)(next() | 1);           /* garbage */
    case 2: return device;
    default: return count ? pool[below(count)] : NULL;
    }
}

static int depth = 0;   /* callbacks calling in (bounded) */
/* The callbacks that call Lamina get the running sequence's number as their user data and
 * do nothing once it has ended (0 between sequences): a layer, view or animation that an
 * earlier sequence left behind cannot call into a later one, or into the clean-up. */
static uintptr_t sequence = 0;
static void *token(void) { return (void *)sequence; }
static int live(void *user) { return sequence != 0 && (uintptr_t)user == sequence; }
static void random_call(void);
static void draw(lamina_layer *layer, cairo_t *cr, lamina_rect dirty, void *user) {
    (void)layer; (void)cr; (void)dirty;
    if (live(user) && depth < 2) { depth++; random_call(); depth--; }
}
static void frame_requested(void *user) { if (live(user) && depth < 2) { depth++; random_call(); depth--; } }
static int handled(lamina_view *view, const lamina_event *e, void *user) {
    (void)view; (void)e->type;
    if (!live(user)) return 0;
    if (depth < 2) { depth++; random_call(); depth--; }
    return (int)below(2);
}
static void done(int finished, void *user) { (void)finished; if (live(user) && depth < 2) { depth++; random_call(); depth--; } }
/* A GL layer's callback: runs on the compositor's thread with its context current; it
 * must not call Lamina (documented), so it only issues GL-free work here. */
static void gl_draw(uint32_t framebuffer, int32_t width, int32_t height, lamina_pixel_rect dirty, void *user) {
    (void)framebuffer; (void)width; (void)height; (void)dirty; (void)user;
}
static const char *shaders[] = {
    "#version 300 es\nprecision mediump float;\nuniform vec4 tint;\nout vec4 o;\nvoid main() { o = tint; }\n",
    "#version 300 es\nprecision mediump float;\nin vec2 lamina_uv;\nout vec4 o;\nvoid main() { o = lamina_sample(lamina_uv); }\n",
    "#version 300 es\nnot glsl at all\n",
    "",
};
static void logged(lamina_log_level level, const char *message, void *user) { (void)level; (void)user; (void)strlen(message); }

static void random_animation(lamina_layer *layer) {
    static const char *paths[] = {"opacity", "position", "bounds", "transform", "backgroundColor", "transform.rotation.z",
                                  "cornerRadius", "nope", "", "shadowOffset", "bounds.size", "colors", "locations", "path",
                                  "strokeEnd", "startPoint"};
    /* (Room for 3 keyframes of up to 39 components: list and path values take up to 39 here.) */
    double values[128];
    for (int i = 0; i < 128; i++) values[i] = number();
    lamina_animation a, children[3];
    lamina_animation_init(&a, (lamina_animation_kind)below(5), below(17) ? paths[below(16)] : NULL);
    a.components = (size_t)(below(5) ? (int[]){1, 2, 4, 16}[below(4)] : below(40));
    a.from = below(2) ? values : NULL;
    a.to = below(2) ? values + 16 : NULL;
    a.by = below(4) ? NULL : values + 32;
    a.values = below(3) ? values : NULL;
    a.value_count = (size_t)below(4);
    a.key_times = below(3) ? NULL : values + 8;
    a.duration = below(3) ? number() : 0.01;
    a.delay = below(3) ? 0 : number();
    a.speed = below(3) ? 1 : number();
    a.repeat_count = below(3) ? 0 : number();
    a.autoreverses = below(2);
    a.fill_mode = (lamina_fill_mode)below(5);
    a.timing_function = (lamina_timing_function)below(7);
    for (int i = 0; i < 4; i++) a.bezier[i] = number();
    if (below(2)) { a.mass = number(); a.stiffness = number(); a.damping = number(); a.initial_velocity = number(); }
    for (int i = 0; i < 3; i++) { children[i] = a; children[i].kind = (lamina_animation_kind)below(3); children[i].children = NULL; }
    a.children = below(4) ? children : NULL;
    a.child_count = (size_t)below(4);
    a.done = below(2) ? done : NULL;
    a.done_user_data = token();
    lamina_layer_add_animation(layer, &a, below(3) ? "k" : NULL);
}

static uint8_t buffer[256 * 256 * 4];
static int begun = 0;   /* explicit transactions opened (closed at the sequence's end) */
/* The hosts and windows made (detached at the sequence's end: nothing of theirs composites
 * or asks for frames in a later sequence). */
#define HOSTS 64
static void *hosts[HOSTS], *windows[HOSTS];
static int host_count = 0, window_count = 0;

static void random_call(void) {
    void *h = any(), *h2 = any();
    switch (below(60)) {
    case 0: case 1: { lamina_layer *l = NULL; lamina_layer_create(&l); keep(l); break; }
    case 2: lamina_release(h); break;
    case 3: lamina_retain(h); break;
    case 4: case 5: lamina_layer_add_sublayer(h, h2); break;
    case 6: lamina_layer_insert_sublayer(h, h2, below(2) ? (size_t)below(4) : (size_t)next()); break;
    case 7: lamina_layer_remove_from_superlayer(h); break;
    case 8: lamina_layer_set_frame(h, rect()); break;
    case 9: lamina_layer_set_position(h, point()); break;
    case 10: lamina_layer_set_bounds(h, rect()); break;
    case 11: { lamina_transform t; for (int i = 0; i < 16; i++) t.m[i] = below(3) ? (i % 5 == 0) : number();
               if (below(2)) lamina_layer_set_transform(h, below(10) ? &t : NULL); else lamina_layer_set_sublayer_transform(h, &t); break; }
    case 12: lamina_layer_set_opacity(h, number()); break;
    case 13: { lamina_color c = color(); lamina_layer_set_background_color(h, below(5) ? &c : NULL); break; }
    case 14: lamina_layer_set_corner_radius(h, number()); lamina_layer_set_masks_to_bounds(h, below(2));
             lamina_layer_set_masked_corners(h, below(4) ? (unsigned)below(16) : (unsigned)next());
             lamina_layer_set_corner_curve(h, (lamina_corner_curve)(below(4) ? below(2) : (int)next())); break;
    case 15: lamina_layer_set_border_width(h, number()); lamina_layer_set_border_color(h, color()); break;
    case 16: lamina_layer_set_shadow(h, color(), number(), (lamina_size){number(), number()}, number()); break;
    case 17: lamina_layer_set_mask(h, h2); break;
    case 18: lamina_layer_set_blend_mode(h, (lamina_blend_mode)(below(3) ? below(8) : (int)next())); break;
    case 19: lamina_layer_set_backdrop_blur(h, number()); break;
    case 20: lamina_layer_set_contents_scale(h, number()); lamina_layer_set_contents_rect(h, rect());
             lamina_layer_set_contents_center(h, rect()); break;
    case 21: { uint32_t w = size() % 200, ht = size() % 200;   /* (the buffer holds 200 × 802 bytes: honest sizes) */
               lamina_layer_set_contents_pixels(h, below(8) ? buffer : NULL, w, ht, (size_t)w * 4 + (size_t)below(3),
                                                (lamina_pixel_format)below(4)); break; }
    case 22: lamina_layer_set_draw_callback(h, below(6) ? draw : NULL, token(), NULL); lamina_layer_set_needs_display(h); break;
    case 23: lamina_layer_set_needs_display_in_rect(h, rect()); lamina_layer_display_if_needed(h); break;
    case 24: lamina_layer_display_now(h); break;
    case 25: case 26: { lamina_target *t = NULL; lamina_target_create_offscreen(below(8) ? device : h, size(), size(), number() > 0 && below(3) ? 1 : number(), &t); keep(t); break; }
    case 27: { lamina_host *ho = NULL; lamina_color c = color(); lamina_host_create(h, h2, below(2) ? &c : NULL, &ho); keep(ho);
               if (ho && host_count < HOSTS) hosts[host_count++] = ho;
               break; }
    case 28: case 29: lamina_flush(); break;
    case 30: if (below(2)) { if (lamina_transaction_begin() == LAMINA_OK) begun++; } else lamina_transaction_commit(); break;
    case 31: lamina_run_loop_dispatch(); break;
    case 32: { uint32_t w = 0, ht = 0; lamina_target_pixel_size(h, &w, &ht);
               lamina_target_read_pixels(h, (lamina_pixel_format)below(4), below(10) ? buffer : NULL, (size_t)below(2000),
                                         below(2) ? sizeof buffer : (size_t)below(5000)); break; }
    case 33: { lamina_layer *hit = NULL; lamina_layer_hit_test(h, point(), &hit); keep(hit); break; }
    case 34: if (below(4)) random_animation(h);
             else lamina_layer_add_transition(h, (lamina_transition_type)below(6), (lamina_transition_subtype)below(6), number(),
                                              (lamina_timing_function)below(7), below(2) ? "k" : NULL);
             break;
    case 35: lamina_layer_remove_animation(h, below(2) ? "k" : NULL); if (!below(4)) lamina_layer_remove_all_animations(h); break;
    case 36: { lamina_layer *p = NULL; lamina_layer_presentation(h, &p); double v; lamina_layer_get_opacity(p, &v);
               lamina_rect r; lamina_layer_get_frame(p, &r); lamina_release(p); break; }
    case 37: lamina_set_frame_request_callback(below(2) ? frame_requested : NULL, token()); break;
    case 38: lamina_set_frame_time(number()); break;
    case 39: lamina_set_log_handler(below(2) ? logged : NULL, NULL); lamina_set_log_level((lamina_log_level)below(10)); break;
    case 40: lamina_host_present(h, h2, below(2) ? &(lamina_rect){number(), number(), number(), number()} : NULL); break;
    case 41: { uint32_t name; lamina_host_texture(h, &name); lamina_host_set_composites_every_frame(h, below(2)); break; }
    case 42: { lamina_layer *sub = NULL; size_t n = 0; lamina_layer_sublayer_count(h, &n);
               lamina_layer_sublayer_at(h, below(2) ? (size_t)below(3) : (size_t)next(), &sub); keep(sub); break; }
    case 43: lamina_host_detach(h); break;
    case 44: lamina_layer_set_timing(h, number(), number(), number()); lamina_layer_set_anchor_point(h, point());
             lamina_layer_set_z_position(h, number()); lamina_layer_set_anchor_point_z(h, number()); break;
    case 45: lamina_layer_set_hidden(h, below(2)); lamina_layer_set_double_sided(h, below(2));
             lamina_layer_set_filters(h, (lamina_filter)below(4), (lamina_filter)below(4)); break;
    case 46: lamina_set_actions_disabled_by_default(below(2)); lamina_transaction_set_animation_duration(number()); break;
    case 47: if (!below(20) && depth == 0) lamina_device_close(device); break;   /* rarely: everything after must fail cleanly */
    case 48: { lamina_layer *l = NULL; lamina_gl_layer_create(&l); keep(l);
               lamina_layer_set_gl_draw_callback(below(3) ? l : h, below(4) ? gl_draw : NULL, NULL, NULL);
               lamina_gl_layer_set_asynchronous(below(3) ? l : h, below(2));
               lamina_gl_layer_set_drawable_options(h, below(4) - 1, below(6)); break; }
    case 49: { lamina_layer *l = NULL; lamina_shader_layer_create(below(6) ? shaders[below(4)] : NULL, &l); keep(l);
               float v[16]; for (int i = 0; i < 16; i++) v[i] = (float)number();
               lamina_shader_layer_set_uniform(below(3) ? l : h, below(6) ? "tint" : NULL, below(8) ? v : NULL, (size_t)below(18));
               lamina_shader_layer_set_animating(h, below(2)); break; }
    case 50: lamina_layer_set_shader_effect(h, below(4) ? shaders[below(4)] : NULL, number(), number()); break;
    case 51: { float v[16]; for (int i = 0; i < 16; i++) v[i] = (float)number(); uint64_t c;
               lamina_layer_set_shader_effect_uniform(h, below(6) ? "amount" : NULL, v, (size_t)below(18));
               lamina_gl_layer_draw_count(h, below(4) ? &c : NULL); break; }
    case 52: { lamina_layer *l = NULL; lamina_shape_layer_create(&l); keep(l);
               lamina_path_op ops[8]; lamina_point pts[24];
               for (int i = 0; i < 8; i++) ops[i] = (lamina_path_op)(below(8) ? below(5) : (int)next());
               for (int i = 0; i < 24; i++) pts[i] = point();
               lamina_shape_layer_set_path(below(3) ? l : h, below(8) ? ops : NULL, (size_t)below(9), below(8) ? pts : NULL, (size_t)below(25));
               lamina_color c = color(); lamina_shape_layer_set_fill_color(h, below(3) ? &c : NULL);
               lamina_shape_layer_set_stroke_color(below(2) ? l : h, below(3) ? &c : NULL);
               lamina_shape_layer_set_line_width(h, number());
               lamina_shape_layer_set_line_style(h, (lamina_line_cap)below(4), (lamina_line_join)below(4), number());
               double dash[3] = {number(), number(), number()}; lamina_shape_layer_set_line_dash(h, below(6) ? dash : NULL, (size_t)below(4), number());
               double a, b; lamina_shape_layer_set_stroke_range(h, number(), number()); lamina_shape_layer_get_stroke_range(h, &a, &b); break; }
    case 53: { lamina_layer *l = NULL; lamina_gradient_layer_create(&l); keep(l);
               lamina_color cs[4] = {color(), color(), color(), color()}; double locs[4] = {number(), number(), number(), number()};
               lamina_gradient_layer_set_colors(below(3) ? l : h, below(8) ? cs : NULL, below(2) ? locs : NULL, below(6) ? (size_t)below(5) : (size_t)next());
               lamina_gradient_layer_set_points(h, point(), point());
               lamina_gradient_layer_set_type(h, (lamina_gradient_type)(below(4) ? below(3) : (int)next())); break; }
    case 54: { lamina_layer *l = NULL; lamina_text_layer_create(&l); keep(l);
               static const char *strings[] = {"Hello", "", "\xff\xfe broken UTF-8", "a long line that wraps and truncates, again and again"};
               lamina_text_layer_set_string(below(3) ? l : h, below(8) ? strings[below(4)] : NULL);
               lamina_text_layer_set_font(h, below(6) ? "DejaVu Sans" : NULL, number());
               lamina_text_layer_set_foreground_color(h, color());
               lamina_text_layer_set_alignment(h, (lamina_text_alignment)below(7));
               lamina_text_layer_set_wrapped(h, below(2)); lamina_text_layer_set_truncation(h, (lamina_truncation)below(6)); break; }
    case 55: { lamina_layer *l = NULL; lamina_replicator_layer_create(&l); keep(l);
               lamina_replicator_layer_set_instance_count(below(3) ? l : h, below(4) ? (size_t)below(6) : (size_t)next());
               lamina_transform t; for (int i = 0; i < 16; i++) t.m[i] = below(3) ? (i % 5 == 0) : number();
               lamina_replicator_layer_set_instance_transform(h, below(10) ? &t : NULL);
               lamina_replicator_layer_set_instance_color(h, color(), number(), number(), number(), number());
               lamina_replicator_layer_set_instance_delay(h, number()); break; }
    case 56: { lamina_view *v = NULL;   /* views and windows */
               if (below(3)) {
                   lamina_color c = color();
                   if (lamina_window_create(below(4) ? h : device, below(2) ? &c : NULL, &v) == LAMINA_OK) {
                       if (window_count < HOSTS) windows[window_count++] = v;
                       /* A view covering the window's corner, with a handler, and input that reaches it. */
                       lamina_view *inner = NULL;
                       lamina_view_create((lamina_rect){0, 0, 64, 64}, &inner);
                       lamina_view_add_subview(v, inner);
                       lamina_view_set_event_handler(inner, handled, token(), NULL);
                       lamina_view_set_accepts_first_responder(inner, 1);
                       lamina_view_become_first_responder(inner, NULL);
                       keep(inner);
                       for (int i = 0; i < 6; i++) {
                           lamina_point p = {(double)below(80), (double)below(80)};
                           lamina_window_send_touch(v, (int)below(2), (lamina_event_type)below(4), p, i);
                           lamina_window_send_pointer(v, 0, below(5), p, i);
                           lamina_window_send_key(v, (lamina_event_type)(4 + below(4)), (int)below(0x50), 0, NULL, i);
                           if (!below(3)) lamina_window_send_text(v, "x", i);
                           if (!below(3)) lamina_window_send_scroll(v, 0, 3, &p, i);
                       }
                   }
               } else lamina_view_create(rect(), &v);
               keep(v); lamina_view_add_subview(h, below(3) ? v : h2);
               lamina_view_set_event_handler(below(3) ? v : h, below(5) ? handled : NULL, token(), NULL);
               lamina_view_set_frame(h, rect()); break; }
    case 57: { lamina_layer *l = NULL; lamina_view *v = NULL; lamina_host *ho = NULL; int became;
               lamina_view_get_layer(h, &l); keep(l); lamina_view_hit_test(h, point(), &v); keep(v);
               lamina_window_get_host(h, &ho); keep(ho);
               lamina_view_set_accepts_first_responder(h, below(2)); lamina_view_become_first_responder(h, below(4) ? &became : NULL);
               if (!below(3)) lamina_view_resign_first_responder(h);
               lamina_view_set_user_interaction_enabled(h2, below(4));
               if (!below(4)) lamina_view_remove_from_superview(h2);
               break; }
    case 58: lamina_window_send_touch(h, (int)below(3), (lamina_event_type)below(below(8) ? 4 : 20), point(), number());
             lamina_window_send_pointer(h, (int)below(3), below(4), point(), number()); break;
    case 59: { static const char *texts[] = {"a", "", "\xff\xfe broken UTF-8", "h\xc3\xa9"};
               lamina_point p = point(); lamina_window_send_scroll(h, number(), number(), below(2) ? &p : NULL, number());
               lamina_window_send_key(h, (lamina_event_type)(below(8) ? 4 + below(4) : below(20)), below(6) ? (int)below(0x70) : (int)next(),
                                      below(4) ? (unsigned)below(32) : (unsigned)next(), below(3) ? texts[below(4)] : NULL, number());
               lamina_window_send_text(h, below(6) ? texts[below(4)] : NULL, number());
               if (!below(6)) lamina_window_cancel_keys(h, number());
               break; }
    }
}

/* One sequence, from a clean fuzzer (see the top). 0, or 3 when there is no device. */
static int run(uint64_t seed, int calls) {
    state = seed;
    memset(pool, 0, sizeof pool);
    count = 0;
    depth = 0;
    begun = 0;
    host_count = window_count = 0;
    static uintptr_t sequences_run = 0;
    sequence = ++sequences_run;
    lamina_set_frame_request_callback(NULL, NULL);
    lamina_set_log_handler(NULL, NULL);
    lamina_set_log_level(LAMINA_LOG_OFF);
    lamina_set_frame_time(NAN);
    lamina_set_actions_disabled_by_default(0);
#ifdef FUZZ_CRASH_SEED
    if (seed == FUZZ_CRASH_SEED) abort();
#endif
#ifdef FUZZ_HANG_SEED
    if (seed == FUZZ_HANG_SEED) for (;;) nanosleep(&(struct timespec){1, 0}, NULL);
#endif
#ifdef FUZZ_BATCH_CRASH_SEED
    {   static int earlier = 0;
        if (seed == FUZZ_BATCH_CRASH_SEED && earlier) abort();
        earlier = 1; }
#endif
    if (lamina_device_create(NULL, NULL, &device) != LAMINA_OK) { fprintf(stderr, "fuzz: no device: %s\n", lamina_last_error()); return 3; }
    for (int i = 0; i < 256 * 256 * 4; i++) buffer[i] = (uint8_t)next();
    for (int i = 0; i < calls; i++) random_call();
    lamina_flush();
    /* The clean-up: nothing of this sequence's calls Lamina back from here on. */
    sequence = 0;
    for (; begun > 0; begun--) lamina_transaction_commit();   /* (one too many only warns) */
    for (int i = 0; i < host_count; i++) lamina_host_detach(hosts[i]);   /* (released ones: diagnosed) */
    for (int i = 0; i < window_count; i++) {
        lamina_host *ho = NULL;
        if (lamina_window_get_host(windows[i], &ho) == LAMINA_OK) { lamina_host_detach(ho); lamina_release(ho); }
    }
    lamina_device_close(device);   /* (closed or released by the sequence already: diagnosed) */
    lamina_release(device);
    device = NULL;
    lamina_flush();   /* (what the clean-up changed: nothing pending for the next sequence) */
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: fuzz SEED [CALLS] [COUNT]\n"); return 2; }
    uint64_t seed = strtoull(argv[1], NULL, 10);
    int calls = argc > 2 ? atoi(argv[2]) : 300;
    long sequences = argc > 3 ? atol(argv[3]) : 1;
    if (sequences < 1) { fprintf(stderr, "fuzz: COUNT must be 1 or more (got %s)\n", argv[3]); return 2; }
    for (long k = 0; k < sequences; k++) {
        if (sequences > 1) { printf("fuzz: seed %llu\n", (unsigned long long)(seed + (uint64_t)k)); fflush(stdout); }
        int status = run(seed + (uint64_t)k, calls);
        if (status != 0) return status;
    }
    return 0;
}
