/*
 * Lamina from C: a layer tree with a Cairo draw callback rendered offscreen and written
 * to a PNG, then the same tree composited into the host's own EGL context (adopt mode)
 * over what the host drew. Checks pixels; exits non-zero on any mismatch.
 *
 *   cc -std=c99 example.c $(pkg-config --cflags --libs lamina egl glesv2) -o example
 *   ./example out.png
 */
#define _POSIX_C_SOURCE 200809L
#include <lamina.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(call)                                                                    \
    do {                                                                               \
        lamina_status s_ = (call);                                                     \
        if (s_ != LAMINA_OK) {                                                         \
            fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #call,  \
                    (int)s_, lamina_last_error());                                     \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* Expects the pixel at (x, y) of an RGBA buffer `width` wide to be (r, g, b, a) ± 2. */
static void expect_pixel(const char *what, const uint8_t *rgba, uint32_t width, int x, int y, int r, int g, int b, int a) {
    const uint8_t *p = rgba + ((size_t)y * width + (size_t)x) * 4;
    int d = abs(p[0] - r) + abs(p[1] - g) + abs(p[2] - b) + abs(p[3] - a);
    if (d > 8) {
        fprintf(stderr, "%s: pixel (%d,%d) is (%d,%d,%d,%d), expected (%d,%d,%d,%d)\n", what, x, y, p[0], p[1], p[2], p[3], r, g, b, a);
        failures++;
    }
}

/* The draw callback: a blue disc on the layer's bounds, with Cairo. */
static int draws = 0;
static void draw_disc(lamina_layer *layer, cairo_t *cr, lamina_rect dirty, void *user_data) {
    (void)layer; (void)dirty;
    const double *radius = user_data;
    cairo_set_source_rgb(cr, 0, 0, 1);
    cairo_arc(cr, 40, 40, *radius, 0, 6.283185307179586);
    cairo_fill(cr);
    draws++;
}

/* Builds the tree: a white root, a red card with a rounded corner and a drawn disc. */
static lamina_layer *build_tree(double *radius) {
    lamina_layer *root, *card, *disc;
    CHECK(lamina_layer_create(&root));
    CHECK(lamina_layer_set_frame(root, (lamina_rect){0, 0, 160, 120}));
    CHECK(lamina_layer_create(&card));
    CHECK(lamina_layer_set_frame(card, (lamina_rect){10, 10, 60, 60}));
    lamina_color red = {1, 0, 0, 1};
    CHECK(lamina_layer_set_background_color(card, &red));
    CHECK(lamina_layer_set_corner_radius(card, 8));
    CHECK(lamina_layer_add_sublayer(root, card));
    CHECK(lamina_layer_create(&disc));
    CHECK(lamina_layer_set_frame(disc, (lamina_rect){70, 30, 80, 80}));
    CHECK(lamina_layer_set_draw_callback(disc, draw_disc, radius, NULL));
    CHECK(lamina_layer_set_needs_display(disc));
    CHECK(lamina_layer_add_sublayer(root, disc));
    /* The tree holds them now: drop the example's references except the root's. */
    CHECK(lamina_release(card));
    CHECK(lamina_release(disc));
    return root;
}

static void offscreen(const char *png) {
    lamina_device *device;
    lamina_target *target;
    lamina_host *host;
    double radius = 30;
    CHECK(lamina_device_create(NULL, NULL, &device));
    printf("device: %s\n", lamina_device_backend(device));
    CHECK(lamina_target_create_offscreen(device, 160, 120, 1, &target));
    lamina_layer *root = build_tree(&radius);
    lamina_color white = {1, 1, 1, 1};
    CHECK(lamina_host_create(root, target, &white, &host));
    CHECK(lamina_flush());
    uint8_t *pixels = malloc(160 * 120 * 4);
    CHECK(lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, pixels, 160 * 4, 160 * 120 * 4));
    expect_pixel("offscreen", pixels, 160, 40, 40, 255, 0, 0, 255);     /* the card */
    expect_pixel("offscreen", pixels, 160, 110, 70, 0, 0, 255, 255);    /* the disc's centre */
    expect_pixel("offscreen", pixels, 160, 155, 5, 255, 255, 255, 255); /* the background */
    expect_pixel("offscreen", pixels, 160, 11, 11, 255, 255, 255, 255); /* outside the rounded corner */
    if (draws != 1) { fprintf(stderr, "offscreen: drawn %d times, expected once\n", draws); failures++; }
    CHECK(lamina_target_write_png(target, png));
    printf("wrote %s\n", png);
    free(pixels);
    CHECK(lamina_release(host));
    CHECK(lamina_release(root));
    CHECK(lamina_release(target));
    CHECK(lamina_device_close(device));
    CHECK(lamina_release(device));
}

/* The host's own EGL context (surfaceless), its own framebuffer and its own drawing;
 * Lamina adopts the context and composites over the host's frame. */
static void adopted(void) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL) : EGL_NO_DISPLAY;
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) { fprintf(stderr, "adopt: no surfaceless EGL display\n"); exit(1); }
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_NONE};
    EGLConfig config;
    EGLint n = 0;
    if (!eglChooseConfig(dpy, config_attribs, &config, 1, &n) || n < 1) { fprintf(stderr, "adopt: no ES3 config\n"); exit(1); }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) { fprintf(stderr, "adopt: no context\n"); exit(1); }

    /* The host's framebuffer: a texture it renders into. */
    GLuint tex, fbo;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 160, 120, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    glViewport(0, 0, 160, 120);
    glClearColor(0, 1, 0, 1);   /* the host's frame: green */
    glClear(GL_COLOR_BUFFER_BIT);

    lamina_device *device;
    lamina_target *target;
    lamina_host *host;
    double radius = 20;
    CHECK(lamina_device_create_adopting_current(&device));
    printf("device: %s\n", lamina_device_backend(device));
    CHECK(lamina_target_create_framebuffer(device, fbo, 160, 120, 1, &target));
    lamina_layer *root = build_tree(&radius);
    /* A texture of the host's, shown as a layer's contents (borrowed: the host keeps it). */
    GLuint host_tex;
    uint8_t magenta[8 * 8 * 4];
    for (int i = 0; i < 8 * 8; i++) { magenta[i * 4] = 255; magenta[i * 4 + 1] = 0; magenta[i * 4 + 2] = 255; magenta[i * 4 + 3] = 255; }
    glGenTextures(1, &host_tex);
    glBindTexture(GL_TEXTURE_2D, host_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, magenta);
    lamina_layer *tile;
    CHECK(lamina_layer_create(&tile));
    CHECK(lamina_layer_set_frame(tile, (lamina_rect){120, 5, 30, 20}));
    CHECK(lamina_layer_set_contents_texture(tile, device, host_tex, 8, 8));
    CHECK(lamina_layer_add_sublayer(root, tile));
    CHECK(lamina_release(tile));
    CHECK(lamina_host_create(root, target, NULL, &host));   /* NULL: over the host's frame */
    CHECK(lamina_flush());

    /* The host's GL state is its own again: its framebuffer is still bound. */
    GLint bound = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
    if ((GLuint)bound != fbo) { fprintf(stderr, "adopt: the host's framebuffer binding changed (%d)\n", bound); failures++; }
    uint8_t *pixels = malloc(160 * 120 * 4);
    glReadPixels(0, 0, 160, 120, GL_RGBA, GL_UNSIGNED_BYTE, pixels);   /* bottom row first */
    expect_pixel("adopt", pixels, 160, 40, 120 - 1 - 40, 255, 0, 0, 255);   /* the card */
    expect_pixel("adopt", pixels, 160, 110, 120 - 1 - 70, 0, 0, 255, 255);  /* the disc (radius 20) */
    expect_pixel("adopt", pixels, 160, 140, 120 - 1 - 40, 0, 255, 0, 255);  /* the host's green */
    expect_pixel("adopt", pixels, 160, 135, 120 - 1 - 70, 0, 255, 0, 255);  /* outside the disc */
    expect_pixel("adopt", pixels, 160, 135, 120 - 1 - 15, 255, 0, 255, 255); /* the host's texture */
    CHECK(lamina_release(host));
    CHECK(lamina_release(root));
    CHECK(lamina_release(target));

    /* A panel of the host's framebuffer: Lamina draws only into `region` (top-left origin). */
    glClear(GL_COLOR_BUFFER_BIT);
    lamina_layer *panel_root;
    lamina_target *panel_target;
    lamina_host *region_host;
    lamina_color red = {1, 0, 0, 1};
    CHECK(lamina_layer_create(&panel_root));
    CHECK(lamina_layer_set_frame(panel_root, (lamina_rect){0, 0, 60, 40}));
    CHECK(lamina_layer_set_background_color(panel_root, &red));
    for (int bottom_first = 1; bottom_first >= 0; bottom_first--) {
        glClear(GL_COLOR_BUFFER_BIT);
        CHECK(lamina_target_create_framebuffer_region(device, fbo, 160, 120, (lamina_pixel_rect){20, 10, 60, 40}, bottom_first, 1, &panel_target));
        CHECK(lamina_host_create(panel_root, panel_target, NULL, &region_host));
        CHECK(lamina_flush());
        glReadPixels(0, 0, 160, 120, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        /* GL rows count from the bottom: a bottom-row-first framebuffer shows the panel's
           top-left row 10 at GL row 109; a top-row-first one at GL row 10. */
        int row = bottom_first ? 120 - 1 - 30 : 30;
        const char *what = bottom_first ? "region (bottom row first)" : "region (top row first)";
        expect_pixel(what, pixels, 160, 50, row, 255, 0, 0, 255);   /* inside the panel */
        expect_pixel(what, pixels, 160, 10, row, 0, 255, 0, 255);   /* left of it: the host's */
        expect_pixel(what, pixels, 160, 50, bottom_first ? 120 - 1 - 60 : 60, 0, 255, 0, 255);   /* below it */
        CHECK(lamina_release(region_host));
        CHECK(lamina_release(panel_target));
    }
    if (lamina_target_create_framebuffer_region(device, fbo, 160, 120, (lamina_pixel_rect){150, 0, 20, 10}, 1, 1, &panel_target)
        != LAMINA_ERROR_INVALID_ARGUMENT) { fprintf(stderr, "region: a region past the framebuffer was accepted\n"); failures++; }
    CHECK(lamina_release(panel_root));
    CHECK(lamina_device_close(device));
    CHECK(lamina_release(device));

    /* Share-group mode: a context of Lamina's own sharing the host's objects, rendering
     * offscreen; the host's texture is visible to it. */
    lamina_device *shared;
    lamina_target *offscreen;
    lamina_layer *panel;
    lamina_host *panel_host;
    CHECK(lamina_device_create_sharing_current(&shared));
    printf("device: %s\n", lamina_device_backend(shared));
    CHECK(lamina_target_create_offscreen(shared, 40, 30, 1, &offscreen));
    CHECK(lamina_layer_create(&panel));
    CHECK(lamina_layer_set_frame(panel, (lamina_rect){0, 0, 40, 30}));
    CHECK(lamina_layer_set_contents_texture(panel, shared, host_tex, 8, 8));
    CHECK(lamina_host_create(panel, offscreen, NULL, &panel_host));
    CHECK(lamina_flush());
    CHECK(lamina_target_read_pixels(offscreen, LAMINA_PIXEL_RGBA8, pixels, 40 * 4, 40 * 30 * 4));
    expect_pixel("share", pixels, 40, 20, 15, 255, 0, 255, 255);            /* the host's texture, through the share group */
    CHECK(lamina_release(panel_host));
    CHECK(lamina_release(panel));
    CHECK(lamina_release(offscreen));
    CHECK(lamina_device_close(shared));
    CHECK(lamina_release(shared));
    /* The host's context is current again. */
    if (eglGetCurrentContext() != ctx) { fprintf(stderr, "share: the host's context is no longer current\n"); failures++; }
    free(pixels);
    glDeleteTextures(1, &host_tex);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &tex);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
}

int main(int argc, char **argv) {
    if (lamina_api_version() != LAMINA_API_VERSION) {
        fprintf(stderr, "library API %u, header %d\n", lamina_api_version(), LAMINA_API_VERSION);
        return 1;
    }
    printf("Lamina %s (API %u)\n", lamina_version(), lamina_api_version());
    offscreen(argc > 1 ? argv[1] : "c-example.png");
    adopted();
    if (lamina_live_handles() != 0) { fprintf(stderr, "%zu handles left alive\n", lamina_live_handles()); failures++; }
    if (failures) { fprintf(stderr, "%d checks failed\n", failures); return 1; }
    printf("C example: all pixel checks passed\n");
    return 0;
}
