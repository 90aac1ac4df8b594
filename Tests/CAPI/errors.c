/*
 * The C API's error paths and handle lifetimes: every failure returns a status and a
 * message that says what was tried; nothing crashes. Prints one line per check; exits
 * non-zero when any fails. Built against the installed library through pkg-config.
 */
#define _POSIX_C_SOURCE 200809L
#include <lamina.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

static int failed = 0, passed = 0;

static void check(int ok, const char *what) {
    if (ok) { passed++; printf("ok: %s\n", what); } else { failed++; printf("FAILED: %s (last error: %s)\n", what, lamina_last_error() ? lamina_last_error() : "none"); }
}

/* The call failed with `status` and its message contains `part`. */
static void expect_error(lamina_status got, lamina_status status, const char *part, const char *what) {
    const char *message = lamina_last_error();
    int ok = got == status && message && strstr(message, part);
    if (!ok) printf("   got status %d, message: %s\n", (int)got, message ? message : "(none)");
    else printf("   message: %s\n", message);
    check(ok, what);
}

static int log_count = 0;
static lamina_log_level log_level;
static char log_text[512];
static void logged(lamina_log_level level, const char *message, void *user_data) {
    (void)user_data;
    log_count++;
    log_level = level;
    snprintf(log_text, sizeof log_text, "%s", message);
}

static lamina_status thread_status;
static int thread_error_set;
static lamina_layer *shared_layer;
static void *off_main(void *arg) {
    (void)arg;
    lamina_layer *l = NULL;
    thread_status = lamina_layer_create(&l);
    thread_error_set = lamina_last_error() != NULL && strstr(lamina_last_error(), "main thread") != NULL;
    /* Setting a property of a layer made on the main thread: refused too. */
    if (lamina_layer_set_opacity(shared_layer, 0.5) != LAMINA_ERROR_WRONG_THREAD) thread_status = LAMINA_OK;
    return NULL;
}

static lamina_status reentrant_statuses[3];
static int reentrant_destroyed = 0;
static void draw_reentrant(lamina_layer *l, cairo_t *cr, lamina_rect dirty, void *user_data) {
    (void)cr; (void)dirty; (void)user_data;
    reentrant_statuses[0] = lamina_flush();
    reentrant_statuses[1] = lamina_layer_display_now(l);
    reentrant_statuses[2] = lamina_run_loop_dispatch();
}
static void destroy_reentrant(void *user_data) {
    (void)user_data;
    if (lamina_flush() == LAMINA_OK) reentrant_destroyed++;
}

static int destroyed = 0;
static void on_destroy(void *user_data) { destroyed += *(int *)user_data; }
static void draw_nothing(lamina_layer *l, cairo_t *cr, lamina_rect dirty, void *user_data) { (void)l; (void)cr; (void)dirty; (void)user_data; }

int main(void) {
    lamina_device *device;
    if (lamina_device_create(NULL, NULL, &device) != LAMINA_OK) { printf("FAILED: no device: %s\n", lamina_last_error()); return 1; }
    size_t baseline = lamina_live_handles();
    check(baseline == 1, "one handle alive: the device");

    /* A malformed scene file: the error names the file and where. */
    char scene[64];
    snprintf(scene, sizeof scene, "/tmp/lamina-capi-%ld.json", (long)getpid());
    int fd = open(scene, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const char *json = "{\"version\": 1, \"size\": [64, 64], \"root\": {\"frame\": [0, 0, 64, 64], \"opacty\": 1}}";
    if (write(fd, json, strlen(json)) < 0) return 1;
    close(fd);
    lamina_scene *s = NULL;
    expect_error(lamina_scene_load(scene, &s), LAMINA_ERROR_SCENE, "opacty", "a bad scene file is LAMINA_ERROR_SCENE naming the unknown key");
    check(s == NULL, "no scene handle after the failure");
    unlink(scene);
    expect_error(lamina_scene_load("/nonexistent/scene.json", &s), LAMINA_ERROR_SCENE, "/nonexistent/scene.json", "a missing scene file names its path");

    /* A missing PNG. */
    lamina_layer *layer;
    lamina_layer_create(&layer);
    expect_error(lamina_layer_set_contents_png(layer, "/nonexistent/picture.png"), LAMINA_ERROR_IO, "/nonexistent/picture.png",
                 "a missing PNG is LAMINA_ERROR_IO naming the file");

    /* A target larger than the GPU allows. */
    lamina_target *target = NULL;
    expect_error(lamina_target_create_offscreen(device, 1000000, 16, 1, &target), LAMINA_ERROR_GPU, "maximum",
                 "a target beyond the GPU's limit is LAMINA_ERROR_GPU naming the maximum");
    expect_error(lamina_target_create_offscreen(device, 0, 16, 1, &target), LAMINA_ERROR_INVALID_ARGUMENT, "at least 1 pixel",
                 "a target of no pixels is refused");
    expect_error(lamina_target_create_offscreen(device, 16, 16, -1, &target), LAMINA_ERROR_INVALID_ARGUMENT, "scale",
                 "a negative scale is refused");
    /* Scales whose derived sizes are not representable: 200 pixels at 1e-308 would be
       2e310 points wide (the first composite used to trap); subnormal and huge ones too. */
    expect_error(lamina_target_create_offscreen(device, 200, 150, 1e-308, &target), LAMINA_ERROR_INVALID_ARGUMENT, "1/4096 to 4096",
                 "a scale of 1e-308 is refused");
    expect_error(lamina_target_create_offscreen(device, 200, 150, 4.9e-324, &target), LAMINA_ERROR_INVALID_ARGUMENT, "scale",
                 "a subnormal scale is refused");
    expect_error(lamina_target_create_offscreen(device, 200, 150, 1e38, &target), LAMINA_ERROR_INVALID_ARGUMENT, "scale",
                 "a scale of 1e38 is refused");
    expect_error(lamina_layer_set_contents_scale(layer, 1e-308), LAMINA_ERROR_INVALID_ARGUMENT, "scale",
                 "a contents scale of 1e-308 is refused");
    check(target == NULL, "no target handle after the failures");

    /* Bad arguments. */
    expect_error(lamina_layer_set_opacity(NULL, 1), LAMINA_ERROR_INVALID_ARGUMENT, "NULL", "a NULL handle is LAMINA_ERROR_INVALID_ARGUMENT");
    expect_error(lamina_layer_set_frame(layer, (lamina_rect){0, 0, 1.0 / 0.0, 1}), LAMINA_ERROR_INVALID_ARGUMENT, "finite",
                 "an infinite frame is refused");
    expect_error(lamina_target_read_pixels((lamina_target *)layer, LAMINA_PIXEL_RGBA8, (uint8_t *)&target, 4, 4),
                 LAMINA_ERROR_INVALID_ARGUMENT, "layer handle was passed where a target", "a handle of the wrong kind is refused");
    expect_error(lamina_layer_add_sublayer(layer, layer), LAMINA_ERROR_INVALID_ARGUMENT, "own sublayer", "a layer cannot be its own sublayer");
    lamina_layer *child;
    lamina_layer_create(&child);
    lamina_layer_add_sublayer(layer, child);
    expect_error(lamina_layer_add_sublayer(child, layer), LAMINA_ERROR_INVALID_ARGUMENT, "cycle", "a cycle is refused");
    expect_error(lamina_layer_insert_sublayer(layer, child, 7), LAMINA_ERROR_INVALID_ARGUMENT, "past the end", "an index past the end is refused");
    lamina_release(child);

    /* The wrong thread: an error, never a trap. */
    shared_layer = layer;
    pthread_t t;
    pthread_create(&t, NULL, off_main, NULL);
    pthread_join(t, NULL);
    check(thread_status == LAMINA_ERROR_WRONG_THREAD && thread_error_set, "calls off the main thread return LAMINA_ERROR_WRONG_THREAD with a message on that thread");

    /* Releasing twice, and using a released handle. */
    check(lamina_release(layer) == LAMINA_OK, "the first release");
    expect_error(lamina_release(layer), LAMINA_ERROR_RELEASED, "not a live Lamina handle", "a second release is diagnosed");
    expect_error(lamina_layer_set_opacity(layer, 1), LAMINA_ERROR_RELEASED, "released", "a released handle is diagnosed");
    check(lamina_live_handles() == baseline, "no handle left but the device");

    /* Indexes past either end (size_t wraps to a huge value), an unknown pixel format,
     * and large but finite transforms. */
    lamina_layer *parent;
    lamina_layer_create(&parent);
    lamina_layer *got = NULL;
    expect_error(lamina_layer_sublayer_at(parent, (size_t)-1, &got), LAMINA_ERROR_INVALID_ARGUMENT, "past the end", "sublayer_at((size_t)-1) is refused");
    lamina_layer *kid;
    lamina_layer_create(&kid);
    expect_error(lamina_layer_insert_sublayer(parent, kid, (size_t)-1), LAMINA_ERROR_INVALID_ARGUMENT, "past the end", "insert_sublayer((size_t)-1) is refused");
    lamina_transform big = {{1e308, 0, 0, 0, 0, 1e308, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    check(lamina_layer_set_transform(kid, &big) == LAMINA_OK, "a transform of large but finite elements is accepted");
    uint8_t one[4];
    lamina_target *small;
    lamina_target_create_offscreen(device, 1, 1, 1, &small);
    expect_error(lamina_target_read_pixels(small, (lamina_pixel_format)42, one, 4, 4), LAMINA_ERROR_INVALID_ARGUMENT, "lamina_pixel_format",
                 "an unknown pixel format is refused");
    expect_error(lamina_layer_get_opacity(kid, NULL), LAMINA_ERROR_INVALID_ARGUMENT, "out-pointer", "a getter with a NULL out-pointer is refused");
    size_t before_create = lamina_live_handles();
    expect_error(lamina_layer_create(NULL), LAMINA_ERROR_INVALID_ARGUMENT, "out-pointer", "a create with a NULL out-pointer is refused");
    check(lamina_live_handles() == before_create, "… and makes nothing");
    lamina_release(small); lamina_release(kid); lamina_release(parent);

    /* Re-entrancy: a draw callback that commits or displays again gets an error (no
     * recursion); a destroy callback that calls back in runs after the call, safely. */
    {
        lamina_layer *root2, *reentrant;
        lamina_target *t2;
        lamina_host *h2;
        lamina_layer_create(&root2);
        lamina_layer_set_frame(root2, (lamina_rect){0, 0, 20, 20});
        lamina_layer_create(&reentrant);
        lamina_layer_set_frame(reentrant, (lamina_rect){0, 0, 20, 20});
        lamina_layer_set_draw_callback(reentrant, draw_reentrant, NULL, destroy_reentrant);
        lamina_layer_set_needs_display(reentrant);
        lamina_layer_add_sublayer(root2, reentrant);
        lamina_target_create_offscreen(device, 20, 20, 1, &t2);
        lamina_color w2 = {1, 1, 1, 1};
        lamina_host_create(root2, t2, &w2, &h2);
        check(lamina_flush() == LAMINA_OK, "a commit whose draw callback tries to commit again");
        check(reentrant_statuses[0] == LAMINA_ERROR_DRAW && reentrant_statuses[1] == LAMINA_ERROR_DRAW && reentrant_statuses[2] == LAMINA_ERROR_DRAW,
              "inside a draw: lamina_flush, lamina_layer_display_now and lamina_run_loop_dispatch are LAMINA_ERROR_DRAW");
        lamina_layer_remove_from_superlayer(reentrant);
        check(lamina_release(reentrant) == LAMINA_OK && reentrant_destroyed == 1, "the destroy callback, which calls lamina_flush, ran after the release returned");
        lamina_release(h2); lamina_release(t2); lamina_release(root2);
    }

    /* The destroy callback runs when the layer goes. */
    int weight = 1;
    lamina_layer *drawn;
    lamina_layer_create(&drawn);
    int other = 1;
    lamina_layer_set_draw_callback(drawn, draw_nothing, &weight, on_destroy);
    lamina_layer_set_draw_callback(drawn, draw_nothing, &weight, on_destroy);   /* the same: no destroy */
    check(destroyed == 0, "setting the same user data and destroy again destroys nothing");
    lamina_layer_set_draw_callback(drawn, draw_nothing, &other, on_destroy);    /* the old one's destroy runs */
    check(destroyed == 1, "replacing a draw callback calls the old one's destroy");
    lamina_release(drawn);
    check(destroyed == 2, "the layer's last release calls its destroy");

    /* 10⁴ layers through the API: a tree composited, then released; the counts return. */
    lamina_layer *root;
    lamina_layer_create(&root);
    lamina_layer_set_frame(root, (lamina_rect){0, 0, 200, 200});
    for (int i = 0; i < 10000; i++) {
        lamina_layer *l;
        if (lamina_layer_create(&l) != LAMINA_OK) { check(0, "creating 10⁴ layers"); break; }
        lamina_layer_set_frame(l, (lamina_rect){(double)(i % 100) * 2, (double)(i / 100) * 2, 2, 2});
        lamina_color c = {(double)(i % 7) / 7.0, 0.5, 0.2, 1};
        lamina_layer_set_background_color(l, &c);
        lamina_layer_add_sublayer(root, l);
        lamina_release(l);
    }
    check(lamina_live_handles() == baseline + 1, "10⁴ layers in a tree: only the root's handle is held");
    lamina_target_create_offscreen(device, 200, 200, 1, &target);
    lamina_host *host;
    lamina_color white = {1, 1, 1, 1};
    lamina_host_create(root, target, &white, &host);
    check(lamina_flush() == LAMINA_OK, "the 10⁴-layer tree composites");
    uint8_t px[4 * 200 * 200];
    lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 800, sizeof px);
    check(px[0] == 0 && px[1] == 128 && px[2] == 51 && px[3] == 255, "its first layer's colour is on the target");
    size_t count = 0;
    lamina_layer_sublayer_count(root, &count);
    check(count == 10000, "the root has 10⁴ sublayers");
    lamina_layer *first;
    lamina_layer_sublayer_at(root, 0, &first);
    lamina_layer *again;
    lamina_layer_sublayer_at(root, 0, &again);
    check(first == again, "the same layer comes back as the same handle");
    lamina_release(first);
    lamina_release(again);
    lamina_release(host);
    lamina_release(root);
    lamina_release(target);
    check(lamina_live_handles() == baseline, "every handle released: the live count is back to the device's");
    check(lamina_device_close(device) == LAMINA_OK && lamina_release(device) == LAMINA_OK && lamina_live_handles() == 0,
          "the device closes and goes: no handle alive");

    /* The log: to a handler instead of standard error, filtered by level, silenced. */
    check(lamina_set_log_handler(logged, NULL) == LAMINA_OK, "lamina_set_log_handler");
    lamina_transaction_commit();   /* without begin: recovered from, with a warning */
    check(log_count == 1 && log_level == LAMINA_LOG_WARNING && strstr(log_text, "commit") != NULL,
          "a recovered misuse is a warning given to the handler, with its text");
    if (log_count) printf("   logged: %s\n", log_text);
    check(lamina_set_log_level(LAMINA_LOG_ERROR) == LAMINA_OK, "lamina_set_log_level(ERROR)");
    lamina_transaction_commit();
    check(log_count == 1, "below the level: not logged");
    check(lamina_set_log_level(LAMINA_LOG_TRACE) == LAMINA_OK && lamina_set_log_level(LAMINA_LOG_OFF) == LAMINA_OK, "LAMINA_LOG_OFF");
    lamina_transaction_commit();
    check(log_count == 1, "off: nothing logged");
    expect_error(lamina_set_log_level((lamina_log_level)42), LAMINA_ERROR_INVALID_ARGUMENT, "log level", "an unknown log level is refused");
    check(lamina_set_log_level(LAMINA_LOG_WARNING) == LAMINA_OK && lamina_set_log_handler(NULL, NULL) == LAMINA_OK,
          "back to standard error at the default level");

    printf("capi errors: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
