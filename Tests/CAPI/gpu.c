/*
 * Your own GPU code through the C API: a GL layer drawing with its own GL calls (on demand,
 * asynchronous, depth and multisampling options), a shader layer with a uniform, a shader
 * effect with a uniform, and their error paths. Checks draw counts and pixels.
 */
#include <lamina.h>
#include <GLES3/gl3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed = 0, passed = 0;
static void check(int ok, const char *what) {
    if (ok) { passed++; printf("ok: %s\n", what); } else { failed++; printf("FAILED: %s (last error: %s)\n", what, lamina_last_error() ? lamina_last_error() : "none"); }
}
static int near(const uint8_t *p, int r, int g, int b) { return abs(p[0] - r) + abs(p[1] - g) + abs(p[2] - b) <= 6; }

static int gl_draws = 0, destroyed = 0;
static int32_t last_w = 0, last_h = 0;
static GLint bound_on_entry = -1;
/* The top half (GL: y above the middle) green, the bottom half red. */
static void gl_draw(uint32_t framebuffer, int32_t width, int32_t height, lamina_pixel_rect dirty, void *user) {
    (void)dirty; (void)user;
    gl_draws++;
    last_w = width; last_h = height;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound_on_entry);
    if ((uint32_t)bound_on_entry != framebuffer) bound_on_entry = -1;
    glClearColor(1, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, height / 2, width, height - height / 2);
    glClearColor(0, 1, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    /* Leftovers Lamina must not mind. */
    glBlendEquation(GL_MAX);
    glColorMask(GL_FALSE, GL_TRUE, GL_FALSE, GL_FALSE);
}
static void destroy(void *user) { (void)user; destroyed++; }

static const char *tint_shader =
    "#version 300 es\n"
    "precision mediump float;\n"
    "uniform vec4 tint;\n"
    "out vec4 o;\n"
    "void main() { o = vec4(tint.rgb * tint.a, tint.a); }\n";
static const char *swap_effect =
    "#version 300 es\n"
    "precision mediump float;\n"
    "in vec2 lamina_uv;\n"
    "uniform float amount;\n"
    "out vec4 o;\n"
    "void main() { vec4 c = lamina_sample(lamina_uv); o = mix(c, c.bgra, amount); }\n";

static void pixel(lamina_target *t, uint8_t *all, int x, int y, uint8_t out[4]) {
    lamina_target_read_pixels(t, LAMINA_PIXEL_RGBA8, all, 120 * 4, 120 * 80 * 4);
    for (int i = 0; i < 4; i++) out[i] = all[(y * 120 + x) * 4 + i];
}

int main(void) {
    static uint8_t all[120 * 80 * 4];
    uint8_t p[4];
    lamina_device *device;
    lamina_target *target;
    lamina_layer *root, *gl, *shader, *effected;
    lamina_host *host;
    check(lamina_device_create(NULL, NULL, &device) == LAMINA_OK, "device");
    lamina_target_create_offscreen(device, 120, 80, 1, &target);
    lamina_set_actions_disabled_by_default(1);
    lamina_layer_create(&root);
    lamina_layer_set_frame(root, (lamina_rect){0, 0, 120, 80});
    lamina_color white = {1, 1, 1, 1};
    check(lamina_host_create(root, target, &white, &host) == LAMINA_OK, "host");

    /* A GL layer. */
    check(lamina_gl_layer_create(&gl) == LAMINA_OK, "lamina_gl_layer_create");
    lamina_layer_set_frame(gl, (lamina_rect){0, 0, 40, 40});
    check(lamina_layer_set_gl_draw_callback(gl, gl_draw, NULL, destroy) == LAMINA_OK, "lamina_layer_set_gl_draw_callback");
    lamina_layer_add_sublayer(root, gl);
    lamina_flush();
    uint64_t count = 0;
    check(lamina_gl_layer_draw_count(gl, &count) == LAMINA_OK && count == 1 && gl_draws == 1, "drawn once on the first commit");
    check(last_w == 40 && last_h == 40 && bound_on_entry > 0, "the callback got its 40×40 drawable, its framebuffer bound");
    pixel(target, all, 20, 10, p);
    check(near(p, 0, 255, 0), "the top half is green (row 0 of the drawable is its bottom)");
    pixel(target, all, 20, 30, p);
    check(near(p, 255, 0, 0), "the bottom half is red");
    lamina_layer_set_frame(gl, (lamina_rect){60, 0, 40, 40});
    lamina_flush();
    check(gl_draws == 1, "a move composites the same drawable: no draw");
    pixel(target, all, 80, 10, p);
    check(near(p, 0, 255, 0), "moved, and Lamina's frame unaffected by the callback's leftover state");
    lamina_layer_set_needs_display(gl);
    lamina_flush();
    check(gl_draws == 2, "lamina_layer_set_needs_display draws again");
    check(lamina_gl_layer_set_drawable_options(gl, 2, 4) == LAMINA_OK, "depth + stencil, 4 samples");
    lamina_flush();
    check(gl_draws == 3, "new options: a new drawable, drawn");
    check(lamina_gl_layer_set_drawable_options(gl, 3, 4) == LAMINA_ERROR_INVALID_ARGUMENT, "depth_stencil 3 is refused");
    check(lamina_gl_layer_set_drawable_options(gl, 2, 2) == LAMINA_ERROR_INVALID_ARGUMENT, "2 samples are refused");
    check(lamina_gl_layer_set_asynchronous(gl, 1) == LAMINA_OK, "asynchronous");
    lamina_flush();
    lamina_flush();
    check(gl_draws >= 5, "asynchronous: drawn at each frame");
    lamina_gl_layer_set_asynchronous(gl, 0);
    lamina_flush();

    /* A shader layer with a uniform. */
    check(lamina_shader_layer_create(tint_shader, &shader) == LAMINA_OK, "lamina_shader_layer_create");
    lamina_layer_set_frame(shader, (lamina_rect){0, 50, 30, 30});
    float blue[4] = {0, 0, 1, 1};
    check(lamina_shader_layer_set_uniform(shader, "tint", blue, 4) == LAMINA_OK, "lamina_shader_layer_set_uniform (vec4)");
    float three[3] = {1, 2, 3};
    check(lamina_shader_layer_set_uniform(shader, "tint", three, 5) == LAMINA_ERROR_INVALID_ARGUMENT, "5 floats are refused");
    /* Refused before any value is read: SIZE_MAX (negative as a Swift Int) once trapped. */
    check(lamina_shader_layer_set_uniform(shader, "tint", three, SIZE_MAX) == LAMINA_ERROR_INVALID_ARGUMENT, "SIZE_MAX floats are refused");
    check(lamina_shader_layer_set_uniform(shader, "tint", three, 0) == LAMINA_ERROR_INVALID_ARGUMENT, "0 floats are refused");
    check(lamina_shader_layer_set_uniform(gl, "tint", blue, 4) == LAMINA_ERROR_INVALID_ARGUMENT, "a GL layer is not a shader layer");
    lamina_layer_add_sublayer(root, shader);
    check(lamina_flush() == LAMINA_OK, "the shader layer composites");
    pixel(target, all, 15, 65, p);
    check(near(p, 0, 0, 255), "the shader layer is its uniform's blue");

    /* A shader effect: a layer's red made blue by the effect, then half way back. */
    lamina_layer_create(&effected);
    lamina_layer_set_frame(effected, (lamina_rect){40, 50, 30, 30});
    lamina_color red = {1, 0, 0, 1};
    lamina_layer_set_background_color(effected, &red);
    check(lamina_layer_set_shader_effect(effected, swap_effect, 0, 0) == LAMINA_OK, "lamina_layer_set_shader_effect");
    float one = 1;
    check(lamina_layer_set_shader_effect_uniform(effected, "amount", &one, 1) == LAMINA_OK, "lamina_layer_set_shader_effect_uniform");
    lamina_layer_add_sublayer(root, effected);
    lamina_flush();
    pixel(target, all, 55, 65, p);
    check(near(p, 0, 0, 255), "the effect swaps the layer's red to blue");
    check(lamina_layer_set_shader_effect(effected, NULL, 0, 0) == LAMINA_OK, "NULL removes the effect");
    lamina_flush();
    pixel(target, all, 55, 65, p);
    check(near(p, 255, 0, 0), "red again without the effect");
    check(lamina_layer_set_shader_effect_uniform(effected, "amount", &one, 1) == LAMINA_ERROR_INVALID_ARGUMENT, "no effect: no uniform");

    /* A shader that does not compile fails the commit, naming the line. */
    lamina_layer *broken;
    lamina_shader_layer_create("#version 300 es\nprecision mediump float;\nout vec4 o;\nvoid main() { o = vec4(nope); }\n", &broken);
    lamina_layer_set_frame(broken, (lamina_rect){90, 50, 10, 10});
    lamina_layer_add_sublayer(root, broken);
    lamina_status s = lamina_flush();
    check(s != LAMINA_OK && lamina_last_error() && strstr(lamina_last_error(), "nope"), "a broken shader fails the flush with the driver's log");
    lamina_layer_remove_from_superlayer(broken);
    lamina_release(broken);
    lamina_flush();

    lamina_release(effected);
    lamina_release(shader);
    lamina_layer_remove_from_superlayer(gl);
    lamina_release(gl);
    lamina_flush();
    check(destroyed == 1, "the GL callback's destroy ran once when the layer went");
    lamina_release(host);
    lamina_release(root);
    lamina_release(target);
    lamina_release(device);
    check(lamina_live_handles() == 0, "no handle left");
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
