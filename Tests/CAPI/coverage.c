/*
 * The rest of the C API, used as a host uses it: the run loop's descriptor and turns,
 * explicit transactions, displayNow and partial invalidation, contents from BGRA pixels,
 * scene files (load, render, root layer), getters, frame requests, hit testing, effects (shadow,
 * mask, blend mode, backdrop blur), presentation values, retained mode. Checks results and pixels.
 */
#define _POSIX_C_SOURCE 200809L
#include <lamina.h>

#include <poll.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed = 0, passed = 0;
static void check(int ok, const char *what) {
    if (ok) { passed++; printf("ok: %s\n", what); } else { failed++; printf("FAILED: %s (last error: %s)\n", what, lamina_last_error() ? lamina_last_error() : "none"); }
}
static int near(const uint8_t *p, int r, int g, int b) { return abs(p[0] - r) + abs(p[1] - g) + abs(p[2] - b) <= 6; }

static int draws = 0;
static lamina_rect last_dirty;
static void draw(lamina_layer *layer, cairo_t *cr, lamina_rect dirty, void *user) {
    (void)layer; (void)user;
    draws++;
    last_dirty = dirty;
    cairo_set_source_rgb(cr, 0, 0.5, 1);
    cairo_paint(cr);
}

static int done_count = 0, done_finished = -1;
static void animation_done(int finished, void *user_data) { (void)user_data; done_count++; done_finished = finished; }

static int frame_requests = 0, commit_in_request = 0;
static lamina_status request_status = LAMINA_OK;
static void frame_requested(void *user_data) {
    (void)user_data;
    frame_requests++;
    if (commit_in_request) request_status = lamina_flush();
}

/* Views: every event a handler gets, logged as "who:type@x,y" (and key/text details). */
static char event_log[4096];
static int view_destroyed = 0;
static lamina_layer *highlight_layer = NULL;   /* the parent view's layer: a touch turns it green */
static lamina_view *input_window = NULL;       /* the window: input sent to it from inside a handler is refused */
static lamina_status reentrant_send = LAMINA_OK;
static void log_event(const char *who, const lamina_event *e) {
    static const char *names[] = {"began", "moved", "ended", "cancelled", "down", "repeat", "up", "keycancel",
                                  "text", "delete", "entered", "pmoved", "exited", "scroll"};
    char line[160];
    if (e->type >= LAMINA_EVENT_KEY_DOWN && e->type <= LAMINA_EVENT_KEY_CANCELLED)
        snprintf(line, sizeof line, "%s:%s:%d:%s:r%d:m%u ", who, names[e->type], e->key_code, e->text, e->repeat_count, e->modifiers);
    else if (e->type == LAMINA_EVENT_TEXT)
        snprintf(line, sizeof line, "%s:text:%s@%g ", who, e->text, e->timestamp);
    else if (e->type == LAMINA_EVENT_SCROLL)
        snprintf(line, sizeof line, "%s:scroll@%g,%g:%g ", who, e->location.x, e->location.y, e->scroll_dy);
    else if (e->type == LAMINA_EVENT_DELETE_BACKWARD)
        snprintf(line, sizeof line, "%s:delete@%g ", who, e->timestamp);
    else
        snprintf(line, sizeof line, "%s:%s@%g,%g ", who, names[e->type], e->location.x, e->location.y);
    strncat(event_log, line, sizeof event_log - strlen(event_log) - 1);
}
/* The parent: handles touches (turning green when one begins), pointer moves and scrolls;
   passes keys on. */
static int parent_events(lamina_view *view, const lamina_event *e, void *user) {
    (void)view; (void)user;
    log_event("A", e);
    if (e->type == LAMINA_EVENT_TOUCH_BEGAN) {
        lamina_color green = {0, 1, 0, 1};
        lamina_layer_set_background_color(highlight_layer, &green);
        if (input_window) reentrant_send = lamina_window_send_touch(input_window, 7, LAMINA_EVENT_TOUCH_BEGAN, (lamina_point){1, 1}, 0);
    }
    return e->type < LAMINA_EVENT_KEY_DOWN || e->type == LAMINA_EVENT_POINTER_MOVED || e->type == LAMINA_EVENT_SCROLL;
}
/* The child: passes touches, pointer moves and scrolls on; handles keys but Backspace. */
static int child_events(lamina_view *view, const lamina_event *e, void *user) {
    (void)view; (void)user;
    log_event("B", e);
    return e->type >= LAMINA_EVENT_KEY_DOWN && e->type <= LAMINA_EVENT_KEY_CANCELLED && e->key_code != 0x2A;
}
static void view_destroy(void *user) { (void)user; view_destroyed++; }

int main(int argc, char **argv) {
    const char *scene_path = argc > 1 ? argv[1] : "Examples/showcase.json";
    lamina_device *device;
    lamina_target *target;
    lamina_layer *root, *drawn, *pixels;
    lamina_host *host;
    lamina_device_create(NULL, NULL, &device);
    lamina_target_create_offscreen(device, 100, 100, 1, &target);
    uint32_t w = 0, h = 0;
    check(lamina_target_pixel_size(target, &w, &h) == LAMINA_OK && w == 100 && h == 100, "lamina_target_pixel_size");
    check(lamina_set_actions_disabled_by_default(1) == LAMINA_OK, "implicit animations off for this host");
    lamina_layer_create(&root);
    lamina_layer_set_frame(root, (lamina_rect){0, 0, 100, 100});
    lamina_layer_create(&drawn);
    lamina_layer_set_frame(drawn, (lamina_rect){0, 0, 40, 40});
    lamina_layer_set_draw_callback(drawn, draw, NULL, NULL);
    lamina_layer_add_sublayer(root, drawn);
    lamina_color white = {1, 1, 1, 1};
    lamina_host_create(root, target, &white, &host);

    /* displayNow: drawn when it returns. */
    check(lamina_layer_display_now(drawn) == LAMINA_OK && draws == 1, "lamina_layer_display_now draws before it returns");
    uint64_t count = 0;
    lamina_layer_display_count(drawn, &count);
    check(count == 1, "lamina_layer_display_count");
    /* Partial invalidation: the callback gets the dirty rectangle. */
    lamina_layer_set_needs_display_in_rect(drawn, (lamina_rect){5, 5, 10, 10});
    lamina_layer_display_if_needed(drawn);
    check(draws == 2 && last_dirty.x <= 5 && last_dirty.width >= 10 && last_dirty.width < 40,
          "set_needs_display_in_rect: the callback is given the dirty rectangle");

    /* Contents from BGRA pixels (a 2×2 image stretched over the layer). */
    uint8_t bgra[16];
    for (int i = 0; i < 4; i++) { bgra[i * 4] = 0; bgra[i * 4 + 1] = 0; bgra[i * 4 + 2] = 255; bgra[i * 4 + 3] = 255; }   /* red */
    lamina_layer_create(&pixels);
    lamina_layer_set_frame(pixels, (lamina_rect){50, 50, 40, 40});
    check(lamina_layer_set_contents_pixels(pixels, bgra, 2, 2, 8, LAMINA_PIXEL_BGRA8) == LAMINA_OK, "contents from BGRA pixels");
    lamina_layer_add_sublayer(root, pixels);

    /* The run loop: its descriptor is pollable; a turn commits what is pending. */
    int fd = -1, timeout = 0;
    check(lamina_run_loop_fd(&fd) == LAMINA_OK && fd >= 0, "lamina_run_loop_fd");
    check(lamina_run_loop_timeout(&timeout) == LAMINA_OK, "lamina_run_loop_timeout");
    struct pollfd p = {fd, POLLIN, 0};
    (void)poll(&p, 1, 0);
    check(lamina_run_loop_dispatch() == LAMINA_OK, "lamina_run_loop_dispatch runs a turn");
    uint64_t calls = 0, bytes = 0;
    lamina_host_last_frame(host, &calls, &bytes);
    check(calls > 0, "the turn composited (draw calls in the last frame)");
    uint8_t px[100 * 100 * 4];
    lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
    check(near(px + (70 * 100 + 70) * 4, 255, 0, 0), "the BGRA contents show red");
    check(near(px + (20 * 100 + 20) * 4, 0, 128, 255), "the drawn layer shows its drawing");
    /* BGRA readback swaps the channels. */
    uint8_t bx[100 * 100 * 4];
    lamina_target_read_pixels(target, LAMINA_PIXEL_BGRA8, bx, 400, sizeof bx);
    check(bx[(70 * 100 + 70) * 4 + 2] == px[(70 * 100 + 70) * 4] && bx[(70 * 100 + 70) * 4] == px[(70 * 100 + 70) * 4 + 2], "BGRA readback");

    /* An explicit transaction: nothing shows until the outermost commit. */
    lamina_transaction_begin();
    lamina_color green = {0, 1, 0, 1};
    lamina_layer_set_background_color(root, &green);
    lamina_flush();   /* inside a transaction: waits for the commit */
    lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
    check(near(px + (95 * 100 + 5) * 4, 255, 255, 255), "inside an explicit transaction nothing is committed yet");
    check(lamina_transaction_commit() == LAMINA_OK, "lamina_transaction_commit");
    lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
    check(near(px + (95 * 100 + 5) * 4, 0, 255, 0), "the commit shows the change");
    check(lamina_transaction_commit() == LAMINA_OK, "a commit without begin is recovered from (a warning, not an error)");

    /* Getters. */
    lamina_rect frame;
    double opacity = 0;
    lamina_transform t;
    lamina_layer_set_opacity(pixels, 0.25);
    lamina_layer_get_opacity(pixels, &opacity);
    lamina_layer_get_frame(pixels, &frame);
    lamina_layer_get_transform(pixels, &t);
    check(opacity == 0.25 && frame.x == 50 && frame.width == 40 && t.m[0] == 1 && t.m[15] == 1, "getters");
    check(lamina_layer_set_filters(pixels, LAMINA_FILTER_NEAREST, LAMINA_FILTER_NEAREST) == LAMINA_OK, "lamina_layer_set_filters");
    check(lamina_layer_set_filters(pixels, (lamina_filter)7, LAMINA_FILTER_NEAREST) == LAMINA_ERROR_INVALID_ARGUMENT, "an unknown filter is refused");
    check(lamina_layer_set_timing(pixels, 0, 0, 0.5) == LAMINA_OK, "lamina_layer_set_timing (paused at 0.5 s)");
    check(lamina_layer_set_timing(pixels, 0, 1.0 / 0.0, 0) == LAMINA_ERROR_INVALID_ARGUMENT, "an infinite speed is refused");

    /* Frame requests (a host owning its frame clock): one per change until a commit, none
       while idle; the callback runs as the call that asked returns and may not commit. */
    check(lamina_flush() == LAMINA_OK, "a commit of what is pending");
    check(lamina_set_frame_request_callback(frame_requested, NULL) == LAMINA_OK, "lamina_set_frame_request_callback");
    check(frame_requests == 0, "no request while nothing changes");
    lamina_layer_set_opacity(pixels, 0.5);
    lamina_layer_set_position(pixels, (lamina_point){70, 70});
    check(frame_requests == 1, "two changes: one frame request");
    uint64_t requests = 0;
    check(lamina_flush() == LAMINA_OK && lamina_run_loop_dispatch() == LAMINA_OK && lamina_run_loop_dispatch() == LAMINA_OK && frame_requests == 1,
          "after the commit, idle turns ask nothing");
    commit_in_request = 1;   /* now the callback tries to commit */
    lamina_layer_set_opacity(pixels, 1);
    commit_in_request = 0;
    check(frame_requests == 2 && request_status == LAMINA_ERROR_UNSUPPORTED && lamina_frame_request_count(&requests) == LAMINA_OK && requests >= 2,
          "a commit from the callback is refused (it schedules; with an animation running it would ask again at once)");
    check(lamina_flush() == LAMINA_OK, "the scheduled frame commits the change");
    lamina_layer_set_opacity(pixels, 0.75);
    check(frame_requests == 3, "after that commit, the next change asks again");
    lamina_flush();
    check(lamina_set_frame_time(1.0 / 0.0) == LAMINA_ERROR_INVALID_ARGUMENT && lamina_set_frame_time(0.0 / 0.0) == LAMINA_OK,
          "lamina_set_frame_time: ∞ is refused, NaN is Lamina's own clock again");
    check(lamina_set_frame_request_callback(NULL, NULL) == LAMINA_OK, "frame requests stopped");
    lamina_layer_set_opacity(pixels, 0.5);
    check(frame_requests == 3, "no callback once stopped");
    lamina_flush();

    /* Hit testing (points in the root's superlayer's coordinates: the root has none, so its own). */
    lamina_layer *hit = NULL;
    check(lamina_layer_hit_test(root, (lamina_point){10, 10}, &hit) == LAMINA_OK && hit == drawn, "lamina_layer_hit_test finds the sublayer under a point");
    lamina_release(hit);
    check(lamina_layer_hit_test(root, (lamina_point){75, 75}, &hit) == LAMINA_OK && hit == pixels, "the top-most sublayer wins");
    lamina_release(hit);
    check(lamina_layer_hit_test(root, (lamina_point){95, 5}, &hit) == LAMINA_OK && hit == root, "a point on no sublayer hits the root");
    lamina_release(hit);
    lamina_layer_set_hidden(drawn, 1);
    check(lamina_layer_hit_test(root, (lamina_point){10, 10}, &hit) == LAMINA_OK && hit == root, "a hidden layer is not hit");
    lamina_release(hit);
    lamina_layer_set_hidden(drawn, 0);
    hit = root;
    check(lamina_layer_hit_test(root, (lamina_point){-5, 500}, &hit) == LAMINA_OK && hit == NULL, "outside everything: NULL");
    check(lamina_layer_hit_test(root, (lamina_point){0.0 / 0.0, 5}, &hit) == LAMINA_ERROR_INVALID_ARGUMENT, "a NaN point is refused");

    /* Effects, presentation values and retained mode, with pixels. */
    {
        lamina_target *fx_target, *screen;
        lamina_layer *fx, *card, *masked, *mask, *under, *blend, *dark, *glass, *shown;
        lamina_host *fx_host;
        lamina_color white = {1, 1, 1, 1}, black = {0, 0, 0, 1}, red = {1, 0, 0, 1}, blue = {0, 0, 1, 1}, green = {0, 1, 0, 1};
        lamina_target_create_offscreen(device, 100, 100, 1, &fx_target);
        lamina_layer_create(&fx);
        lamina_layer_set_frame(fx, (lamina_rect){0, 0, 100, 100});
        /* A red card with a hard black shadow 10 points right and down. */
        lamina_layer_create(&card);
        lamina_layer_set_frame(card, (lamina_rect){5, 5, 30, 30});
        lamina_layer_set_background_color(card, &red);
        check(lamina_layer_set_shadow(card, black, 1, (lamina_size){10, 10}, 0) == LAMINA_OK, "lamina_layer_set_shadow");
        check(lamina_layer_set_shadow(card, black, 1, (lamina_size){10, 10}, -1) == LAMINA_ERROR_INVALID_ARGUMENT, "a negative shadow radius is refused");
        lamina_layer_add_sublayer(fx, card);
        /* A blue square masked to its left half. */
        lamina_layer_create(&masked);
        lamina_layer_set_frame(masked, (lamina_rect){55, 5, 40, 40});
        lamina_layer_set_background_color(masked, &blue);
        lamina_layer_create(&mask);
        lamina_layer_set_frame(mask, (lamina_rect){0, 0, 20, 40});
        lamina_layer_set_background_color(mask, &black);
        check(lamina_layer_set_mask(masked, mask) == LAMINA_OK, "lamina_layer_set_mask");
        check(lamina_layer_set_mask(masked, masked) == LAMINA_ERROR_INVALID_ARGUMENT, "a layer cannot mask itself");
        lamina_layer_add_sublayer(fx, masked);
        /* Green multiplied over red: black. */
        lamina_layer_create(&under);
        lamina_layer_set_frame(under, (lamina_rect){5, 55, 40, 40});
        lamina_layer_set_background_color(under, &red);
        lamina_layer_add_sublayer(fx, under);
        lamina_layer_create(&blend);
        lamina_layer_set_frame(blend, (lamina_rect){5, 55, 40, 40});
        lamina_layer_set_background_color(blend, &green);
        check(lamina_layer_set_blend_mode(blend, LAMINA_BLEND_MULTIPLY) == LAMINA_OK, "lamina_layer_set_blend_mode");
        check(lamina_layer_set_blend_mode(blend, (lamina_blend_mode)99) == LAMINA_ERROR_INVALID_ARGUMENT, "an unknown blend mode is refused");
        lamina_layer_add_sublayer(fx, blend);
        /* Glass over a black/white edge: the edge blurred. */
        lamina_layer_create(&dark);
        lamina_layer_set_frame(dark, (lamina_rect){55, 55, 20, 40});
        lamina_layer_set_background_color(dark, &black);
        lamina_layer_add_sublayer(fx, dark);
        lamina_layer_create(&glass);
        lamina_layer_set_frame(glass, (lamina_rect){55, 55, 40, 40});
        check(lamina_layer_set_backdrop_blur(glass, 6) == LAMINA_OK, "lamina_layer_set_backdrop_blur");
        lamina_layer_add_sublayer(fx, glass);
        lamina_host_create(fx, fx_target, &white, &fx_host);
        check(lamina_flush() == LAMINA_OK, "the effects commit");
        lamina_target_read_pixels(fx_target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
        #define AT(x, y) (px + ((y) * 100 + (x)) * 4)
        check(near(AT(10, 10), 255, 0, 0) && near(AT(40, 40), 0, 0, 0) && near(AT(40, 10), 255, 255, 255), "the shadow: under the card, offset right and down");
        check(near(AT(60, 20), 0, 0, 255) && near(AT(85, 20), 255, 255, 255), "the mask: the left half shows, the right half does not");
        check(near(AT(20, 70), 0, 0, 0), "multiply: green over red is black");
        check(AT(73, 75)[0] > 30 && AT(73, 75)[0] < 128 && AT(77, 75)[0] > 128 && AT(77, 75)[0] < 225, "the backdrop blur softens the edge under the glass");
        /* Presentation values: an implicit fade of the card, half a frame in. */
        lamina_set_actions_disabled_by_default(0);
        lamina_set_frame_time(500);   /* a fixed clock: no time passes between the commit and the look */
        lamina_layer_set_opacity(card, 0);
        lamina_flush();
        double model = 1, presented = 0;
        check(lamina_layer_presentation(card, &shown) == LAMINA_OK && lamina_layer_get_opacity(shown, &presented) == LAMINA_OK
              && lamina_layer_get_opacity(card, &model) == LAMINA_OK && model == 0 && presented > 0.5,
              "lamina_layer_presentation: the card as shown, fading from 1 while its model is 0");
        lamina_release(shown);
        lamina_set_actions_disabled_by_default(1);
        lamina_set_frame_time(0.0 / 0.0);
        /* Retained mode: the host's texture, and its picture presented into another target. */
        uint32_t name = 0;
        check(lamina_host_texture(fx_host, &name) == LAMINA_OK && name != 0, "lamina_host_texture");
        lamina_target_create_offscreen(device, 100, 100, 1, &screen);
        check(lamina_host_present(fx_host, screen, &(lamina_rect){0, 0, 50, 50}) == LAMINA_OK, "lamina_host_present");
        lamina_target_read_pixels(screen, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
        check(near(AT(5, 5), 255, 0, 0) && AT(75, 75)[3] == 0, "presented into the top-left quarter, the rest untouched");
        #undef AT
        lamina_release(fx_host);
        lamina_release(card); lamina_release(masked); lamina_release(mask); lamina_release(under); lamina_release(blend);
        lamina_release(dark); lamina_release(glass); lamina_release(fx); lamina_release(fx_target); lamina_release(screen);
    }

    /* Corner shapes: one rounded corner, continuous; the others square. */
    {
        lamina_target *corner_target;
        lamina_layer *frame_layer, *tab;
        lamina_host *corner_host;
        lamina_color white = {1, 1, 1, 1}, red = {1, 0, 0, 1};
        lamina_target_create_offscreen(device, 100, 100, 1, &corner_target);
        lamina_layer_create(&frame_layer);
        lamina_layer_set_frame(frame_layer, (lamina_rect){0, 0, 100, 100});
        lamina_layer_create(&tab);
        lamina_layer_set_frame(tab, (lamina_rect){10, 10, 80, 80});
        lamina_layer_set_background_color(tab, &red);
        lamina_layer_set_corner_radius(tab, 24);
        check(lamina_layer_set_masked_corners(tab, LAMINA_CORNER_MIN_X_MIN_Y) == LAMINA_OK, "lamina_layer_set_masked_corners");
        check(lamina_layer_set_masked_corners(tab, 16) == LAMINA_ERROR_INVALID_ARGUMENT, "corner bits past the four are refused");
        check(lamina_layer_set_corner_curve(tab, LAMINA_CORNER_CURVE_CONTINUOUS) == LAMINA_OK, "lamina_layer_set_corner_curve");
        check(lamina_layer_set_corner_curve(tab, (lamina_corner_curve)7) == LAMINA_ERROR_INVALID_ARGUMENT, "an unknown corner curve is refused");
        unsigned corners = 0;
        lamina_corner_curve curve = LAMINA_CORNER_CURVE_CIRCULAR;
        check(lamina_layer_get_masked_corners(tab, &corners) == LAMINA_OK && corners == LAMINA_CORNER_MIN_X_MIN_Y
              && lamina_layer_get_corner_curve(tab, &curve) == LAMINA_OK && curve == LAMINA_CORNER_CURVE_CONTINUOUS,
              "the getters give what was set (the refused values changed nothing)");
        lamina_layer_add_sublayer(frame_layer, tab);
        lamina_host_create(frame_layer, corner_target, &white, &corner_host);
        check(lamina_flush() == LAMINA_OK, "the corners commit");
        lamina_target_read_pixels(corner_target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
        #define AT(x, y) (px + ((y) * 100 + (x)) * 4)
        check(near(AT(12, 12), 255, 255, 255) && near(AT(30, 30), 255, 0, 0), "the top-left corner is rounded");
        check(near(AT(87, 12), 255, 0, 0) && near(AT(12, 87), 255, 0, 0) && near(AT(87, 87), 255, 0, 0), "the other three stay square");
        /* 20.5 points along the top edge, half a point in: the continuous corner leaves the
           edge earlier (36.7 from the corner) than a circle of 24 does: that pixel is mostly cut
           (its edge is 0.82 in there), the circle's mostly covered (0.26 in). */
        int continuous_green = AT(10 + 20, 10)[1];
        lamina_layer_set_corner_curve(tab, LAMINA_CORNER_CURVE_CIRCULAR);
        lamina_flush();
        lamina_target_read_pixels(corner_target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
        printf("   edge pixel (30, 10): green %d continuous, %d circular\n", continuous_green, AT(10 + 20, 10)[1]);
        check(continuous_green > AT(10 + 20, 10)[1] + 60, "continuous corners cut further along the edge than circular ones");
        #undef AT
        lamina_release(corner_host);
        lamina_release(tab); lamina_release(frame_layer); lamina_release(corner_target);
    }

    /* Layer kinds: a shape, a gradient, text and a replicator, side by side in 400×100. */
    {
        static uint8_t kp[400 * 100 * 4];
        lamina_target *kinds_target;
        lamina_layer *kroot, *shape, *grad, *label, *rep, *dot;
        lamina_host *kinds_host;
        lamina_color white = {1, 1, 1, 1}, red = {1, 0, 0, 1}, black = {0, 0, 0, 1}, green = {0, 1, 0, 1};
        lamina_target_create_offscreen(device, 400, 100, 1, &kinds_target);
        lamina_layer_create(&kroot);
        lamina_layer_set_frame(kroot, (lamina_rect){0, 0, 400, 100});
        /* A red triangle (the upper-left half of its square). */
        check(lamina_shape_layer_create(&shape) == LAMINA_OK, "lamina_shape_layer_create");
        lamina_layer_set_frame(shape, (lamina_rect){0, 0, 100, 100});
        lamina_path_op ops[] = {LAMINA_PATH_MOVE, LAMINA_PATH_LINE, LAMINA_PATH_LINE, LAMINA_PATH_CLOSE};
        lamina_point points[] = {{10, 10}, {90, 10}, {10, 90}};
        check(lamina_shape_layer_set_path(shape, ops, 4, points, 3) == LAMINA_OK, "lamina_shape_layer_set_path");
        check(lamina_shape_layer_set_path(shape, ops, 4, points, 2) == LAMINA_ERROR_INVALID_ARGUMENT, "a path with too few points is refused");
        check(lamina_shape_layer_set_path(shape, ops, (size_t)-1, points, 3) == LAMINA_ERROR_INVALID_ARGUMENT
              && lamina_shape_layer_set_line_dash(shape, (double[]){4, 2}, (size_t)-1, 0) == LAMINA_ERROR_INVALID_ARGUMENT,
              "counts past any array (a negative size_t) are refused, not taken as 0");
        check(lamina_shape_layer_set_fill_color(shape, &red) == LAMINA_OK, "lamina_shape_layer_set_fill_color");
        check(lamina_shape_layer_set_stroke_color(shape, NULL) == LAMINA_OK && lamina_shape_layer_set_line_width(shape, 2) == LAMINA_OK
              && lamina_shape_layer_set_line_style(shape, LAMINA_LINE_CAP_ROUND, LAMINA_LINE_JOIN_BEVEL, 4) == LAMINA_OK
              && lamina_shape_layer_set_line_dash(shape, (double[]){4, 2}, 2, 0) == LAMINA_OK
              && lamina_shape_layer_set_even_odd(shape, 0) == LAMINA_OK, "the stroke's and fill's settings");
        check(lamina_shape_layer_set_line_width(shape, -1) == LAMINA_ERROR_INVALID_ARGUMENT, "a negative line width is refused");
        double start = -1, end = -1;
        check(lamina_shape_layer_set_stroke_range(shape, 0, 0.5) == LAMINA_OK && lamina_shape_layer_get_stroke_range(shape, &start, &end) == LAMINA_OK
              && start == 0 && end == 0.5, "strokeStart and strokeEnd");
        check(lamina_shape_layer_set_stroke_range(shape, 0, 2) == LAMINA_ERROR_INVALID_ARGUMENT, "a stroke end past 1 is refused");
        lamina_layer_add_sublayer(kroot, shape);
        /* A red-to-blue gradient, top to bottom. */
        check(lamina_gradient_layer_create(&grad) == LAMINA_OK, "lamina_gradient_layer_create");
        lamina_layer_set_frame(grad, (lamina_rect){100, 0, 100, 100});
        lamina_color stops[] = {{1, 0, 0, 1}, {0, 0, 1, 1}};
        check(lamina_gradient_layer_set_colors(grad, stops, NULL, 2) == LAMINA_OK, "lamina_gradient_layer_set_colors");
        check(lamina_gradient_layer_set_colors(grad, stops, (double[]){0.8, 0.2}, 2) == LAMINA_ERROR_INVALID_ARGUMENT, "decreasing locations are refused");
        check(lamina_gradient_layer_set_points(grad, (lamina_point){0.5, 0}, (lamina_point){0.5, 1}) == LAMINA_OK
              && lamina_gradient_layer_set_type(grad, LAMINA_GRADIENT_AXIAL) == LAMINA_OK, "the gradient's points and type");
        check(lamina_gradient_layer_set_type(grad, (lamina_gradient_type)9) == LAMINA_ERROR_INVALID_ARGUMENT, "an unknown gradient type is refused");
        check(lamina_shape_layer_set_path(grad, ops, 4, points, 3) == LAMINA_ERROR_INVALID_ARGUMENT, "a shape function on a gradient layer is refused");
        lamina_layer_add_sublayer(kroot, grad);
        /* Black text. */
        check(lamina_text_layer_create(&label) == LAMINA_OK, "lamina_text_layer_create");
        lamina_layer_set_frame(label, (lamina_rect){200, 0, 100, 100});
        check(lamina_text_layer_set_string(label, "Hi") == LAMINA_OK && lamina_text_layer_set_font(label, "DejaVu Sans", 48) == LAMINA_OK
              && lamina_text_layer_set_foreground_color(label, black) == LAMINA_OK
              && lamina_text_layer_set_alignment(label, LAMINA_TEXT_ALIGN_CENTER) == LAMINA_OK
              && lamina_text_layer_set_wrapped(label, 1) == LAMINA_OK && lamina_text_layer_set_truncation(label, LAMINA_TRUNCATE_END) == LAMINA_OK,
              "the text layer's string, font, colour, alignment, wrapping and truncation");
        check(lamina_text_layer_set_font(label, "DejaVu Sans", 0) == LAMINA_ERROR_INVALID_ARGUMENT, "a font size of 0 is refused");
        lamina_layer_add_sublayer(kroot, label);
        /* Three green dots 30 points apart. */
        check(lamina_replicator_layer_create(&rep) == LAMINA_OK, "lamina_replicator_layer_create");
        lamina_layer_set_frame(rep, (lamina_rect){300, 0, 100, 100});
        lamina_layer_create(&dot);
        lamina_layer_set_frame(dot, (lamina_rect){0, 0, 20, 20});
        lamina_layer_set_background_color(dot, &white);
        lamina_layer_add_sublayer(rep, dot);
        lamina_transform step = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 30, 0, 0, 1}};
        check(lamina_replicator_layer_set_instance_count(rep, 3) == LAMINA_OK
              && lamina_replicator_layer_set_instance_transform(rep, &step) == LAMINA_OK
              && lamina_replicator_layer_set_instance_color(rep, green, 0, 0, 0, 0) == LAMINA_OK
              && lamina_replicator_layer_set_instance_delay(rep, 0.1) == LAMINA_OK, "the replicator's count, transform, colour and delay");
        check(lamina_replicator_layer_set_instance_delay(rep, 1.0 / 0.0) == LAMINA_ERROR_INVALID_ARGUMENT, "an infinite delay is refused");
        check(lamina_replicator_layer_set_instance_count(rep, 100000) == LAMINA_ERROR_INVALID_ARGUMENT, "more than 10000 instances are refused");
        lamina_layer_add_sublayer(kroot, rep);
        lamina_host_create(kroot, kinds_target, &white, &kinds_host);
        check(lamina_flush() == LAMINA_OK, "the layer kinds commit");
        lamina_target_read_pixels(kinds_target, LAMINA_PIXEL_RGBA8, kp, 1600, sizeof kp);
        #define KAT(x, y) (kp + ((y) * 400 + (x)) * 4)
        check(near(KAT(20, 20), 255, 0, 0) && near(KAT(80, 80), 255, 255, 255), "the shape: its triangle filled red, the other half of the square not");
        check(KAT(150, 2)[0] > 240 && KAT(150, 2)[2] < 15 && KAT(150, 97)[2] > 240 && KAT(150, 97)[0] < 15 && abs(KAT(150, 50)[0] - 128) < 8,
              "the gradient: red at the top, blue at the bottom, half-way between in the middle");
        int dark = 0;
        for (int y = 0; y < 100; y++) for (int x = 200; x < 300; x++) dark += KAT(x, y)[0] < 60;
        printf("   text: %d dark pixels\n", dark);
        check(dark > 150, "the text layer draws its string");
        check(near(KAT(305, 5), 0, 255, 0) && near(KAT(335, 5), 0, 255, 0) && near(KAT(365, 5), 0, 255, 0) && near(KAT(395, 5), 255, 255, 255),
              "the replicator: three instances 30 points apart, coloured by the instance colour");
        lamina_text_layer_set_string(label, NULL);
        lamina_flush();
        lamina_target_read_pixels(kinds_target, LAMINA_PIXEL_RGBA8, kp, 1600, sizeof kp);
        dark = 0;
        for (int y = 0; y < 100; y++) for (int x = 200; x < 300; x++) dark += KAT(x, y)[0] < 60;
        check(dark == 0, "a NULL string shows nothing");
        /* List and path animations on a fixed frame clock (linear, 10 s): the triangle's third
           corner moves from the bottom left to the bottom right, the gradient's colours go
           from red/blue to green/green, then its locations from (0, 1) to (0, 0.5). */
        {
            const double t0 = 2000;
            lamina_set_frame_time(t0);
            lamina_flush();
            lamina_animation morph, fade_colors, stops;
            double from_points[] = {10, 10, 90, 10, 10, 90}, to_points[] = {10, 10, 90, 10, 90, 90};
            lamina_animation_init(&morph, LAMINA_ANIMATION_BASIC, "path");
            morph.components = 6; morph.from = from_points; morph.to = to_points; morph.duration = 10;
            morph.timing_function = LAMINA_TIMING_LINEAR;
            check(lamina_layer_add_animation(shape, &morph, "morph") == LAMINA_OK, "a path animation (the layer's operations, new points)");
            double from_colors[] = {1, 0, 0, 1, 0, 0, 1, 1}, to_colors[] = {0, 1, 0, 1, 0, 1, 0, 1};
            lamina_animation_init(&fade_colors, LAMINA_ANIMATION_BASIC, "colors");
            fade_colors.components = 8; fade_colors.from = from_colors; fade_colors.to = to_colors; fade_colors.duration = 10;
            fade_colors.timing_function = LAMINA_TIMING_LINEAR;
            check(lamina_layer_add_animation(grad, &fade_colors, "colors") == LAMINA_OK, "a colour-list animation");
            morph.components = 4;
            check(lamina_layer_add_animation(shape, &morph, "bad") == LAMINA_ERROR_INVALID_ARGUMENT, "a path value of another point count is refused");
            morph.components = 6;
            check(lamina_layer_add_animation(grad, &morph, "bad") == LAMINA_ERROR_INVALID_ARGUMENT, "a path animation on a layer without a path is refused");
            fade_colors.components = 6;
            check(lamina_layer_add_animation(grad, &fade_colors, "bad") == LAMINA_ERROR_INVALID_ARGUMENT, "colours of 6 components are refused");
            lamina_flush();                                 /* they begin at this commit: t0 */
            lamina_set_frame_time(t0 + 5);
            lamina_flush();
            lamina_target_read_pixels(kinds_target, LAMINA_PIXEL_RGBA8, kp, 1600, sizeof kp);
            printf("   half-way: shape (50,60) %d, (20,70) %d, (80,70) %d; gradient top %d %d %d, bottom %d %d %d\n",
                   KAT(50, 60)[1], KAT(20, 70)[1], KAT(80, 70)[1], KAT(150, 0)[0], KAT(150, 0)[1], KAT(150, 0)[2],
                   KAT(150, 99)[0], KAT(150, 99)[1], KAT(150, 99)[2]);
            /* Half-way the triangle is (10,10) (90,10) (50,90): (50,60) inside; (20,70), inside
               at the start, and (80,70), inside at the end, outside. */
            check(near(KAT(50, 60), 255, 0, 0) && near(KAT(20, 70), 255, 255, 255) && near(KAT(80, 70), 255, 255, 255),
                  "the path half-way: its moving corner at the bottom middle");
            check(near(KAT(150, 0), 128, 128, 0) && near(KAT(150, 99), 0, 128, 128), "the colours half-way: red→green at the top, blue→green at the bottom");
            lamina_set_frame_time(t0 + 20);
            lamina_flush();
            double from_stops[] = {0, 1}, to_stops[] = {0, 0.5};
            lamina_animation_init(&stops, LAMINA_ANIMATION_BASIC, "locations");
            stops.components = 2; stops.from = from_stops; stops.to = to_stops; stops.duration = 10;
            stops.timing_function = LAMINA_TIMING_LINEAR;
            check(lamina_layer_add_animation(grad, &stops, "stops") == LAMINA_OK, "a locations animation");
            lamina_flush();
            lamina_set_frame_time(t0 + 25);
            lamina_flush();
            lamina_target_read_pixels(kinds_target, LAMINA_PIXEL_RGBA8, kp, 1600, sizeof kp);
            printf("   locations (0, 0.75): y 37 %d %d %d, y 85 %d %d %d\n", KAT(150, 37)[0], KAT(150, 37)[1], KAT(150, 37)[2],
                   KAT(150, 85)[0], KAT(150, 85)[1], KAT(150, 85)[2]);
            /* Red → blue over the top three quarters, blue below (the colours animation over). */
            check(near(KAT(150, 85), 0, 0, 255) && abs(KAT(150, 37)[0] - 128) < 10 && abs(KAT(150, 37)[2] - 128) < 10,
                  "the locations at (0, 0.75): half-way at y 37.5, blue below 75");
            lamina_animation shown_to_model;   /* no values: from what is shown to the model's value */
            lamina_animation_init(&shown_to_model, LAMINA_ANIMATION_BASIC, "colors");
            check(lamina_layer_add_animation(grad, &shown_to_model, "plain") == LAMINA_OK
                  && lamina_layer_remove_animation(grad, "plain") == LAMINA_OK,
                  "a colours animation without values needs no component count");
            lamina_set_frame_time(0.0 / 0.0);
        }
        #undef KAT
        lamina_release(kinds_host);
        lamina_release(shape); lamina_release(grad); lamina_release(label); lamina_release(dot); lamina_release(rep);
        lamina_release(kroot); lamina_release(kinds_target);
    }

    /* Explicit animations on a fixed frame clock (lamina_set_frame_time): basic, keyframe,
       spring and group, their values half-way through, a completion, refusals. */
    {
        lamina_layer *a, *b;   /* b: hidden, so that its animations do not touch a's pixels */
        lamina_color red = {1, 0, 0, 1};
        uint8_t under[4];      /* what lies where the red layer will be half-way */
        lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
        memcpy(under, px + (60 * 100 + 25) * 4, 4);
        lamina_layer_create(&b);
        lamina_layer_set_frame(b, (lamina_rect){0, 0, 20, 20});
        lamina_layer_set_hidden(b, 1);
        lamina_layer_add_sublayer(root, b);
        lamina_layer_create(&a);
        lamina_layer_set_frame(a, (lamina_rect){0, 60, 20, 20});
        lamina_layer_set_background_color(a, &red);
        lamina_layer_add_sublayer(root, a);
        const double t0 = 1000;
        lamina_set_frame_time(t0);
        lamina_flush();
        lamina_animation fade, path, spring, group, members[2];
        double zero = 0, one = 1, hundred = 100;
        lamina_animation_init(&fade, LAMINA_ANIMATION_BASIC, "opacity");
        fade.from = &zero; fade.to = &one; fade.duration = 10; fade.timing_function = LAMINA_TIMING_LINEAR;
        fade.done = animation_done;
        check(lamina_layer_add_animation(a, &fade, "fade") == LAMINA_OK, "lamina_layer_add_animation (basic)");
        double points[] = {10, 60, 25, 60, 25, 90};   /* a free corner of the 100×100 target */
        lamina_animation_init(&path, LAMINA_ANIMATION_KEYFRAME, "position");
        path.components = 2; path.values = points; path.value_count = 3; path.duration = 10; path.timing_function = LAMINA_TIMING_LINEAR;
        check(lamina_layer_add_animation(a, &path, "path") == LAMINA_OK, "a keyframe animation");
        lamina_animation_init(&spring, LAMINA_ANIMATION_SPRING, "cornerRadius");
        spring.from = &zero; spring.to = &hundred; spring.duration = 10;
        check(lamina_layer_add_animation(b, &spring, "spring") == LAMINA_OK, "a spring animation");
        lamina_animation_init(&members[0], LAMINA_ANIMATION_BASIC, "borderWidth");
        members[0].from = &zero; members[0].to = &hundred; members[0].duration = 10; members[0].timing_function = LAMINA_TIMING_LINEAR;
        lamina_animation_init(&members[1], LAMINA_ANIMATION_BASIC, "shadowOpacity");
        members[1].from = &zero; members[1].to = &one; members[1].duration = 10;
        members[1].timing_function = LAMINA_TIMING_BEZIER;
        members[1].bezier[0] = 0; members[1].bezier[1] = 0; members[1].bezier[2] = 1; members[1].bezier[3] = 1;   /* linear */
        lamina_animation_init(&group, LAMINA_ANIMATION_GROUP, NULL);
        group.children = members; group.child_count = 2; group.duration = 10;
        check(lamina_layer_add_animation(b, &group, "group") == LAMINA_OK, "a group of two");
        lamina_flush();                                   /* they begin at this commit: t0 */
        lamina_set_frame_time(t0 + 5);
        lamina_flush();
        lamina_layer *shown;
        double opacity = 0, radius = 0, border = 0, shadow = 0;
        lamina_point position = {0, 0};
        lamina_layer_presentation(a, &shown);
        lamina_layer_get_opacity(shown, &opacity);
        lamina_layer_get_position(shown, &position);
        lamina_release(shown);
        lamina_layer_presentation(b, &shown);
        lamina_layer_get_corner_radius(shown, &radius);
        lamina_layer_get_border_width(shown, &border);
        lamina_layer_get_shadow_opacity(shown, &shadow);
        lamina_release(shown);
        printf("   half-way: opacity %.3f, position (%.2f, %.2f), corner radius %.2f, border %.2f, shadow %.3f\n",
               opacity, position.x, position.y, radius, border, shadow);
        check(fabs(opacity - 0.5) < 0.01, "basic, linear: half-way at half the duration");
        check(fabs(position.x - 25) < 0.01 && fabs(position.y - 60) < 0.01, "keyframes: at the middle value at half the duration");
        check(fabs(radius - 100) < 1, "the spring has settled at its target");
        check(fabs(border - 50) < 0.01 && fabs(shadow - 0.5) < 0.01, "the group's members, half-way (a Bézier that is linear)");
        lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
        const uint8_t *q = px + (60 * 100 + 25) * 4;
        printf("   pixel (25, 60): %d %d %d %d\n", q[0], q[1], q[2], q[3]);
        check(near(q, (255 + under[0]) / 2, under[1] / 2, under[2] / 2), "the half-faded red layer is drawn where the keyframes put it, over what was there");
        int has = 0;
        check(lamina_layer_has_animation(a, "fade", &has) == LAMINA_OK && has, "lamina_layer_has_animation");
        lamina_set_frame_time(t0 + 20);
        lamina_flush();
        check(done_count == 1 && done_finished == 1, "the completion: called once, finished");
        check(lamina_layer_has_animation(a, "fade", &has) == LAMINA_OK && !has, "removed on completion");
        fade.from = NULL;
        check(lamina_layer_add_animation(a, &fade, NULL) == LAMINA_OK, "a key of its own when NULL");
        lamina_flush();
        lamina_layer_remove_all_animations(a);
        lamina_flush();
        check(done_count == 2 && done_finished == 0, "removed early: finished is 0");
        lamina_animation bad;
        lamina_animation_init(&bad, LAMINA_ANIMATION_BASIC, "nope");
        bad.to = &one;
        check(lamina_layer_add_animation(a, &bad, "bad") == LAMINA_ERROR_INVALID_ARGUMENT, "a key path that cannot be animated is refused");
        lamina_animation_init(&bad, LAMINA_ANIMATION_BASIC, "opacity");
        bad.to = &one; bad.components = 3;
        check(lamina_layer_add_animation(a, &bad, "bad") == LAMINA_ERROR_INVALID_ARGUMENT, "3 components are refused");
        bad.components = 1; bad.duration = 0.0 / 0.0;
        check(lamina_layer_add_animation(a, &bad, "bad") == LAMINA_ERROR_INVALID_ARGUMENT, "a NaN duration is refused");
        lamina_set_frame_time(0.0 / 0.0);
        lamina_layer_remove_from_superlayer(a);
        lamina_layer_remove_from_superlayer(b);
        lamina_release(a);
        lamina_release(b);
        lamina_flush();
    }

    /* A push transition from the right on a fixed frame clock: half-way, the old (red)
       picture is pushed half out to the left and the new (blue) one fills the right half. */
    {
        lamina_layer *card;
        lamina_color red = {1, 0, 0, 1}, blue = {0, 0, 1, 1};
        lamina_layer_create(&card);
        lamina_layer_set_frame(card, (lamina_rect){60, 60, 40, 40});
        lamina_layer_set_background_color(card, &red);
        lamina_layer_add_sublayer(root, card);
        const double t0 = 2000;
        lamina_set_frame_time(t0);
        lamina_flush();
        check(lamina_layer_add_transition(card, LAMINA_TRANSITION_PUSH, LAMINA_TRANSITION_FROM_RIGHT, 10, LAMINA_TIMING_LINEAR, NULL) == LAMINA_OK,
              "lamina_layer_add_transition (push from the right)");
        lamina_layer_set_background_color(card, &blue);
        int has = 0;
        check(lamina_layer_has_animation(card, "transition", &has) == LAMINA_OK && has, "under the key \"transition\" when NULL");
        lamina_flush();                                   /* it begins at this commit: t0 */
        lamina_set_frame_time(t0 + 5);
        lamina_flush();
        lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
        const uint8_t *old = px + (80 * 100 + 70) * 4, *new = px + (80 * 100 + 90) * 4, *out = px + (80 * 100 + 50) * 4;
        printf("   push half-way: (70, 80) %d %d %d, (90, 80) %d %d %d, (50, 80) %d %d %d\n", old[0], old[1], old[2],
               new[0], new[1], new[2], out[0], out[1], out[2]);
        check(near(old, 255, 0, 0) && near(new, 0, 0, 255) && near(out, 255, 0, 0),
              "half-way: the old picture moved 20 pt left (unclipped), the new one in the right half");
        lamina_set_frame_time(t0 + 20);
        lamina_flush();
        lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 400, sizeof px);
        check(near(px + (80 * 100 + 70) * 4, 0, 0, 255) && lamina_layer_has_animation(card, "transition", &has) == LAMINA_OK && !has,
              "after it: the new picture, the transition removed");
        check(lamina_layer_add_transition(card, (lamina_transition_type)9, LAMINA_TRANSITION_FROM_LEFT, 1, LAMINA_TIMING_LINEAR, "t")
              == LAMINA_ERROR_INVALID_ARGUMENT, "an unknown transition type is refused");
        check(lamina_layer_add_transition(card, LAMINA_TRANSITION_FADE, LAMINA_TRANSITION_FROM_LEFT, 0.0 / 0.0, LAMINA_TIMING_LINEAR, "t")
              == LAMINA_ERROR_INVALID_ARGUMENT, "a NaN duration is refused");
        check(lamina_layer_add_transition(card, LAMINA_TRANSITION_FADE, LAMINA_TRANSITION_FROM_LEFT, 1, LAMINA_TIMING_BEZIER, "t")
              == LAMINA_ERROR_INVALID_ARGUMENT, "a Bézier timing is refused (the description has no control points)");
        lamina_set_frame_time(0.0 / 0.0);
        lamina_layer_remove_from_superlayer(card);
        lamina_release(card);
        lamina_flush();
    }

    /* Views and input: a window with view A (red, 10,10 60×60), B inside it (blue, 10,10
       20×20: window 20…40) and C (no handler, 40,40 15×15: window 50…65). Events go through
       hit testing and the responder chain; A's handler turns it green on a touch. */
    {
        static uint8_t vp[100 * 100 * 4];
        lamina_target *view_target;
        lamina_view *window = NULL, *va = NULL, *vb = NULL, *vc = NULL, *hit = NULL;
        lamina_layer *lb = NULL, *lc = NULL;  /* (NULL unless set below: each && chain stops at a failure) */
        lamina_color white = {1, 1, 1, 1}, red = {1, 0, 0, 1}, blue = {0, 0, 1, 1}, gray = {0.5, 0.5, 0.5, 1};
        lamina_target_create_offscreen(device, 100, 100, 1, &view_target);
        check(lamina_window_create(view_target, &white, &window) == LAMINA_OK, "lamina_window_create");
        check(lamina_view_create((lamina_rect){10, 10, 60, 60}, &va) == LAMINA_OK && lamina_view_create((lamina_rect){10, 10, 20, 20}, &vb) == LAMINA_OK
              && lamina_view_create((lamina_rect){40, 40, 15, 15}, &vc) == LAMINA_OK, "lamina_view_create");
        check(lamina_view_add_subview(window, va) == LAMINA_OK && lamina_view_add_subview(va, vb) == LAMINA_OK
              && lamina_view_add_subview(va, vc) == LAMINA_OK, "lamina_view_add_subview");
        check(lamina_view_get_layer(va, &highlight_layer) == LAMINA_OK && lamina_view_get_layer(vb, &lb) == LAMINA_OK
              && lamina_view_get_layer(vc, &lc) == LAMINA_OK, "lamina_view_get_layer");
        lamina_layer_set_background_color(highlight_layer, &red);
        lamina_layer_set_background_color(lb, &blue);
        lamina_layer_set_background_color(lc, &gray);
        check(lamina_view_set_event_handler(va, parent_events, NULL, NULL) == LAMINA_OK
              && lamina_view_set_event_handler(vb, child_events, NULL, view_destroy) == LAMINA_OK, "lamina_view_set_event_handler");
        check(lamina_view_set_event_handler(window, parent_events, NULL, NULL) == LAMINA_ERROR_INVALID_ARGUMENT, "a window takes no handler (said why)");
        check(lamina_view_add_subview(vb, va) == LAMINA_ERROR_INVALID_ARGUMENT && lamina_view_add_subview(va, window) == LAMINA_ERROR_INVALID_ARGUMENT,
              "a cycle and a window as a subview are refused");
        check(lamina_flush() == LAMINA_OK, "the window composites at the commit");
        lamina_target_read_pixels(view_target, LAMINA_PIXEL_RGBA8, vp, 400, sizeof vp);
        #define VAT(x, y) (vp + ((y) * 100 + (x)) * 4)
        check(near(VAT(15, 15), 255, 0, 0) && near(VAT(25, 25), 0, 0, 255) && near(VAT(55, 55), 128, 128, 128) && near(VAT(90, 90), 255, 255, 255),
              "the views drawn: A red, B blue, C gray, the window white");
        check(lamina_view_hit_test(window, (lamina_point){25, 25}, &hit) == LAMINA_OK && hit == vb, "lamina_view_hit_test: B under (25, 25)");
        lamina_release(hit);
        check(lamina_view_hit_test(window, (lamina_point){55, 55}, &hit) == LAMINA_OK && hit == vc, "C under (55, 55)");
        lamina_release(hit);
        check(lamina_view_hit_test(va, (lamina_point){100, 100}, &hit) == LAMINA_OK && hit == NULL, "nothing outside A (NULL)");

        /* A touch on B: B passes it on, A handles it; it stays with B when it leaves B. */
        event_log[0] = 0;
        input_window = window;
        lamina_window_send_touch(window, 0, LAMINA_EVENT_TOUCH_BEGAN, (lamina_point){25, 25}, 1.0);
        lamina_window_send_touch(window, 0, LAMINA_EVENT_TOUCH_MOVED, (lamina_point){80, 80}, 1.1);
        lamina_window_send_touch(window, 0, LAMINA_EVENT_TOUCH_ENDED, (lamina_point){80, 80}, 1.2);
        printf("   touch on B: %s\n", event_log);
        check(!strcmp(event_log, "B:began@5,5 A:began@15,15 B:moved@60,60 A:moved@70,70 B:ended@60,60 A:ended@70,70 "),
              "a touch: to B (its points), passed on to A (its points), every phase to the view it began in");
        lamina_flush();
        lamina_target_read_pixels(view_target, LAMINA_PIXEL_RGBA8, vp, 400, sizeof vp);
        check(near(VAT(15, 15), 0, 255, 0), "A's handler turned A green: the change is drawn at the next commit");
        check(reentrant_send == LAMINA_ERROR_INVALID_ARGUMENT, "input sent from inside a handler is refused (not delivered re-entrantly)");
        input_window = NULL;
        event_log[0] = 0;
        lamina_window_send_touch(window, 3, LAMINA_EVENT_TOUCH_BEGAN, (lamina_point){55, 55}, 2.0);
        lamina_window_send_touch(window, 3, LAMINA_EVENT_TOUCH_CANCELLED, (lamina_point){55, 55}, 2.1);
        check(!strcmp(event_log, "A:began@45,45 A:cancelled@45,45 "), "a touch on C (no handler) reaches A");
        check(lamina_window_send_touch(window, 0, LAMINA_EVENT_KEY_DOWN, (lamina_point){1, 1}, 0) == LAMINA_ERROR_INVALID_ARGUMENT
              && lamina_window_send_touch(window, 0, LAMINA_EVENT_TOUCH_BEGAN, (lamina_point){0.0 / 0.0, 1}, 0) == LAMINA_ERROR_INVALID_ARGUMENT,
              "a touch with a key's phase or a NaN location is refused");

        /* The pointer: entered outermost first, moved to the deepest view (B passes it on),
           exited deepest first; a scroll goes to the view under the pointer, up the chain. */
        event_log[0] = 0;
        lamina_window_send_pointer(window, 0, 1, (lamina_point){25, 25}, 3.0);
        lamina_window_send_pointer(window, 0, 1, (lamina_point){15, 15}, 3.1);
        lamina_window_send_scroll(window, 0, 10, NULL, 3.2);
        lamina_window_send_pointer(window, 0, 0, (lamina_point){15, 15}, 3.3);
        printf("   pointer: %s\n", event_log);
        check(!strcmp(event_log, "A:entered@15,15 B:entered@5,5 B:pmoved@5,5 A:pmoved@15,15 B:exited@-5,-5 A:pmoved@5,5 "
                                 "A:scroll@5,5:10 A:exited@5,5 "),
              "hover: entered A then B, moved B → A, B exited when the pointer left it, a scroll at the pointer, A exited");

        /* Keys: to the window (no handler: nothing) until B is the first responder. */
        int became = -1;
        event_log[0] = 0;
        lamina_window_send_key(window, LAMINA_EVENT_KEY_DOWN, 0x04, 0, "a", 4.0);
        lamina_window_send_key(window, LAMINA_EVENT_KEY_UP, 0x04, 0, "a", 4.1);
        check(event_log[0] == 0, "keys without a first responder reach no view");
        check(lamina_view_become_first_responder(vb, &became) == LAMINA_OK && became == 0, "B does not become first responder unless it accepts");
        check(lamina_view_set_accepts_first_responder(vb, 1) == LAMINA_OK && lamina_view_become_first_responder(vb, &became) == LAMINA_OK && became == 1,
              "lamina_view_become_first_responder");
        lamina_window_send_key(window, LAMINA_EVENT_KEY_DOWN, 0x04, LAMINA_MODIFIER_SHIFT, "A", 4.2);
        lamina_window_send_key(window, LAMINA_EVENT_KEY_DOWN, 0x04, LAMINA_MODIFIER_SHIFT, "A", 4.3);
        lamina_window_send_key(window, LAMINA_EVENT_KEY_UP, 0x04, LAMINA_MODIFIER_SHIFT, "A", 4.4);
        lamina_window_send_text(window, "h\xc3\xa9", 4.5);
        lamina_window_send_key(window, LAMINA_EVENT_KEY_DOWN, 0x2A, 0, NULL, 4.6);
        lamina_window_send_key(window, LAMINA_EVENT_KEY_DOWN, 0x2B, 0, NULL, 4.7);
        check(lamina_window_cancel_keys(window, 4.8) == LAMINA_OK, "lamina_window_cancel_keys");
        printf("   keys: %s\n", event_log);
        check(!strcmp(event_log, "B:down:4:A:r0:m1 B:repeat:4:A:r1:m1 B:up:4:A:r1:m1 B:text:h\xc3\xa9@4.5 "
                                 "B:down:42:\b:r0:m0 A:down:42:\b:r0:m0 B:delete@4.6 B:down:43:\t:r0:m0 B:keycancel:42:\b:r0:m0 B:keycancel:43:\t:r0:m0 "
                                 "A:keycancel:42:\b:r0:m0 "),
              "keys to the first responder (repeat, modifiers, characters), text, Backspace passed on to A then deleting backward (each at its input's time), cancelled keys");
        check(lamina_window_send_key(window, LAMINA_EVENT_KEY_DOWN, 0x04, 1u << 9, NULL, 5) == LAMINA_ERROR_INVALID_ARGUMENT
              && lamina_window_send_key(window, LAMINA_EVENT_TOUCH_BEGAN, 0x04, 0, NULL, 5) == LAMINA_ERROR_INVALID_ARGUMENT,
              "unknown modifier bits and a touch's phase for a key are refused");
        check(lamina_view_resign_first_responder(vb) == LAMINA_OK, "lamina_view_resign_first_responder");
        event_log[0] = 0;
        lamina_window_send_text(window, "x", 5.0);
        check(event_log[0] == 0, "text without a first responder is dropped");

        /* Not interactive: B is not hit, a touch there goes to A. */
        check(lamina_view_set_user_interaction_enabled(vb, 0) == LAMINA_OK && lamina_view_hit_test(window, (lamina_point){25, 25}, &hit) == LAMINA_OK
              && hit == va, "a view without user interaction is not hit (its superview is)");
        lamina_release(hit);
        check(lamina_view_set_frame(vc, (lamina_rect){0, 0, 30, 30}) == LAMINA_OK && lamina_view_hit_test(window, (lamina_point){15, 15}, &hit) == LAMINA_OK
              && hit == vc, "lamina_view_set_frame moves C where it is hit");
        lamina_release(hit);
        lamina_host *window_host;
        uint64_t calls = 0, bytes = 0;
        check(lamina_window_get_host(window, &window_host) == LAMINA_OK && lamina_flush() == LAMINA_OK
              && lamina_host_last_frame(window_host, &calls, &bytes) == LAMINA_OK && calls > 0, "lamina_window_get_host: the window's frames");
        lamina_release(window_host);
        /* Another target (a host's framebuffer re-made at another size): the window moves there. */
        lamina_target *smaller;
        static uint8_t sp[60 * 60 * 4];
        lamina_target_create_offscreen(device, 60, 60, 1, &smaller);
        check(lamina_window_set_target(window, smaller) == LAMINA_OK && lamina_flush() == LAMINA_OK
              && lamina_target_read_pixels(smaller, LAMINA_PIXEL_RGBA8, sp, 240, sizeof sp) == LAMINA_OK
              && near(sp + (50 * 60 + 50) * 4, 0, 255, 0) && near(sp + (5 * 60 + 5) * 4, 255, 255, 255),
              "lamina_window_set_target: the window composites into the new target (A green at (50, 50), the window white at (5, 5))");
        check(lamina_window_set_target(window, (lamina_target *)(void *)highlight_layer) == LAMINA_ERROR_INVALID_ARGUMENT, "a layer is not a target");
        lamina_release(view_target);
        view_target = smaller;
        check(lamina_view_remove_from_superview(vb) == LAMINA_OK, "lamina_view_remove_from_superview");
        lamina_release(lb); lamina_release(lc); lamina_release(highlight_layer);
        lamina_release(vb);
        lamina_flush();
        check(view_destroyed == 1, "the handler's destroy ran when B went");
        lamina_release(vc); lamina_release(va); lamina_release(window);
        lamina_release(view_target);
        lamina_flush();
        #undef VAT
    }

    /* A scene file: loaded, rendered to PNG, its root layer reachable. */
    lamina_scene *scene;
    check(lamina_scene_load(scene_path, &scene) == LAMINA_OK, "lamina_scene_load");
    check(lamina_scene_render_png(scene, device, 0, "coverage-scene.png") == LAMINA_OK, "lamina_scene_render_png");
    lamina_layer *scene_root;
    size_t n = 0;
    check(lamina_scene_root_layer(scene, &scene_root) == LAMINA_OK && lamina_layer_sublayer_count(scene_root, &n) == LAMINA_OK && n > 0,
          "the scene's root layer and its sublayers");
    check(lamina_layer_set_draw_callback(scene_root, draw, NULL, NULL) == LAMINA_ERROR_UNSUPPORTED, "a scene's layer takes no draw callback (an error, said why)");

    lamina_release(scene_root); lamina_release(scene);
    lamina_release(host); lamina_release(pixels); lamina_release(drawn); lamina_release(root); lamina_release(target);
    lamina_device_close(device);
    lamina_release(device);
    check(lamina_live_handles() == 0, "no handle left");
    printf("capi coverage: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
