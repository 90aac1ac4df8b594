/*
 * A GLFW application with a Lamina HUD, built the way GLFW programs are built
 * (cc glfw-host.c $(pkg-config --cflags --libs glfw3 lamina glesv2)):
 * a window with GLFW's default context (desktop OpenGL made through GLX on X11) or, with
 * --egl, an OpenGL ES 3 context made through EGL; the application's own GL scene
 * each frame, and Lamina's layers composited over it in the same framebuffer, through the
 * adopted context. The HUD is a Lamina window with a button view; GLFW's pointer input goes
 * to the window, which hit-tests it and delivers it to the button's event handler: the
 * pointer coming in lightens it, a click (pressed and released inside) turns it green, and
 * the button, the first responder, gets the keys and text GLFW's key and char callbacks
 * send. The run checks itself: after the click and a key it reads the
 * framebuffer (the button green, the application's scene around it) and the GL state the
 * application set (its framebuffer, scissor, clear colour, program), prints what it found
 * and exits 0; 1 when a check fails or no click came within 20 s.
 *
 *   glfw-host [--egl | --core]   --egl: GLFW_OPENGL_ES_API 3.0 through GLFW_EGL_CONTEXT_API;
 *                       --core: a 3.3 core profile through GLX; neither: GLFW's defaults
 *                       (desktop OpenGL, compatibility profile, through GLX). Lamina adopts each.
 */
#define _POSIX_C_SOURCE 200809L
#include <GLFW/glfw3.h>
#include <GLES3/gl3.h>
#include <lamina.h>
#include "../frame-cost.h"   /* LAMINA_HOST_MEASURE: the HUD's cost per frame */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static lamina_view *hud, *button;   /* Lamina's window over GLFW's, and its button */
static lamina_layer *button_layer;
static int clicks = 0, entered = 0, keys = 0;
static char typed[64];   /* the text that reached the button (first responder) */
static double clicked_at = 0;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

/* The button's events, in its own points (120 × 50). */
static int on_button(lamina_view *view, const lamina_event *e, void *user) {
    (void)view; (void)user;
    lamina_color blue = {0.15, 0.35, 0.9, 1}, light = {0.4, 0.55, 1, 1}, green = {0.1, 0.8, 0.2, 1};
    switch (e->type) {
    case LAMINA_EVENT_POINTER_ENTERED: entered++; if (!clicks) lamina_layer_set_background_color(button_layer, &light); break;
    case LAMINA_EVENT_POINTER_EXITED: if (!clicks) lamina_layer_set_background_color(button_layer, &blue); break;
    case LAMINA_EVENT_KEY_DOWN:
        keys++;
        printf("glfw-host: key '%s' (HID 0x%02x) reached the button\n", e->text, e->key_code);
        break;
    case LAMINA_EVENT_TEXT:
        strncat(typed, e->text, sizeof typed - strlen(typed) - 1);
        break;
    case LAMINA_EVENT_TOUCH_ENDED:
        if (e->location.x >= 0 && e->location.x < 120 && e->location.y >= 0 && e->location.y < 50) {   /* released inside */
            lamina_layer_set_background_color(button_layer, &green);
            clicks++;
            clicked_at = now();   /* the colour animates (an implicit action, 0.25 s) */
            printf("glfw-host: click at (%.0f, %.0f) in the button\n", e->location.x, e->location.y);
        }
        break;
    default: break;
    }
    return 1;
}

/* GLFW's input, in window coordinates = points (scale 1), to Lamina's window. */
static void on_mouse(GLFWwindow *window, int which, int action, int mods) {
    (void)mods;
    if (which != GLFW_MOUSE_BUTTON_LEFT) return;
    double x, y;
    glfwGetCursorPos(window, &x, &y);
    lamina_window_send_touch(hud, 0, action == GLFW_PRESS ? LAMINA_EVENT_TOUCH_BEGAN : LAMINA_EVENT_TOUCH_ENDED,
                             (lamina_point){x, y}, glfwGetTime());
}
static void on_cursor(GLFWwindow *window, double x, double y) {
    (void)window;
    lamina_window_send_pointer(hud, 0, 1, (lamina_point){x, y}, glfwGetTime());
}
/* Letter keys as USB HID usages (A = 0x04 … Z = 0x1D); the text comes from the char callback. */
static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods) {
    (void)window; (void)scancode;
    if (key < GLFW_KEY_A || key > GLFW_KEY_Z) return;
    unsigned modifiers = (mods & GLFW_MOD_SHIFT ? LAMINA_MODIFIER_SHIFT : 0) | (mods & GLFW_MOD_CONTROL ? LAMINA_MODIFIER_CONTROL : 0)
                       | (mods & GLFW_MOD_ALT ? LAMINA_MODIFIER_ALT : 0) | (mods & GLFW_MOD_SUPER ? LAMINA_MODIFIER_SUPER : 0);
    char text[2] = {(char)(mods & GLFW_MOD_SHIFT ? key : key - 'A' + 'a'), 0};
    lamina_window_send_key(hud, action == GLFW_RELEASE ? LAMINA_EVENT_KEY_UP : LAMINA_EVENT_KEY_DOWN,   /* a repeat: down again */
                           0x04 + (key - GLFW_KEY_A), modifiers, text, glfwGetTime());
}
static void on_char(GLFWwindow *window, unsigned int codepoint) {
    (void)window;
    char text[5] = {0};   /* UTF-8 */
    if (codepoint < 0x80) text[0] = (char)codepoint;
    else if (codepoint < 0x800) { text[0] = (char)(0xC0 | codepoint >> 6); text[1] = (char)(0x80 | (codepoint & 0x3F)); }
    else if (codepoint < 0x10000) { text[0] = (char)(0xE0 | codepoint >> 12); text[1] = (char)(0x80 | (codepoint >> 6 & 0x3F)); text[2] = (char)(0x80 | (codepoint & 0x3F)); }
    else { text[0] = (char)(0xF0 | codepoint >> 18); text[1] = (char)(0x80 | (codepoint >> 12 & 0x3F)); text[2] = (char)(0x80 | (codepoint >> 6 & 0x3F)); text[3] = (char)(0x80 | (codepoint & 0x3F)); }
    lamina_window_send_text(hud, text, glfwGetTime());
}
static void on_enter(GLFWwindow *window, int inside) {
    double x, y;
    glfwGetCursorPos(window, &x, &y);
    lamina_window_send_pointer(hud, 0, inside, (lamina_point){x, y}, glfwGetTime());
}

/* The application's own scene: dark grey, an orange bar at the bottom, drawn with its own
 * state (which Lamina must leave as it found it). */
static void draw_scene(int fbw, int fbh) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fbw, fbh);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.2f, 0.2f, 0.2f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, fbw, 30);
    glClearColor(1, 0.5f, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(5, 5, 7, 7);                 /* left set, as a host may */
    glClearColor(0.3f, 0.3f, 0.3f, 1);
}

int main(int argc, char **argv) {
    int egl = argc > 1 && strcmp(argv[1], "--egl") == 0, core = argc > 1 && strcmp(argv[1], "--core") == 0;
    if (!glfwInit()) { fprintf(stderr, "glfw-host: glfwInit failed (no X display?)\n"); return 1; }
    if (egl) {
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
        glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    } else if (core) {
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    }
    glfwWindowHint(GLFW_STENCIL_BITS, 8);     /* Lamina's exact clips use the stencil */
    glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    GLFWwindow *window = glfwCreateWindow(320, 240, "lamina-glfw", NULL, NULL);
    if (!window) { fprintf(stderr, "glfw-host: no window\n"); glfwTerminate(); return 1; }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(0);
    glfwSetMouseButtonCallback(window, on_mouse);
    glfwSetCursorPosCallback(window, on_cursor);
    glfwSetCursorEnterCallback(window, on_enter);
    glfwSetKeyCallback(window, on_key);
    glfwSetCharCallback(window, on_char);
    int fbw, fbh;
    glfwGetFramebufferSize(window, &fbw, &fbh);

    lamina_device *device;
    if (lamina_device_create_adopting_current(&device) != LAMINA_OK) {
        printf("glfw-host: Lamina refused the context: %s\n", lamina_last_error());
        glfwTerminate();
        return 1;
    }
    lamina_target *target;
    lamina_host *host;
    lamina_color blue = {0.15, 0.35, 0.9, 1};
    if (lamina_target_create_framebuffer(device, 0, (uint32_t)fbw, (uint32_t)fbh, 1, &target) != LAMINA_OK
        || lamina_window_create(target, NULL, &hud) != LAMINA_OK          /* NULL: over the application's frame */
        || lamina_window_get_host(hud, &host) != LAMINA_OK
        || lamina_view_create((lamina_rect){20, 20, 120, 50}, &button) != LAMINA_OK
        || lamina_view_get_layer(button, &button_layer) != LAMINA_OK
        || lamina_view_set_event_handler(button, on_button, NULL, NULL) != LAMINA_OK
        || lamina_view_add_subview(hud, button) != LAMINA_OK
        || lamina_view_set_accepts_first_responder(button, 1) != LAMINA_OK
        || lamina_view_become_first_responder(button, NULL) != LAMINA_OK) {   /* keys and text go to it */
        printf("glfw-host: %s\n", lamina_last_error());
        return 1;
    }
    lamina_layer_set_background_color(button_layer, &blue);
    lamina_layer_set_corner_radius(button_layer, 12);
    lamina_host_set_composites_every_frame(host, 1);
    printf("glfw-host: ready (%s through %s, %s)\n", (const char *)glGetString(GL_VERSION), egl ? "EGL" : "GLX",
           lamina_device_backend(device));
    fflush(stdout);

    int failures = 0, frames = 0;
    double start = now();
    while (!glfwWindowShouldClose(window) && now() - start < 20) {
        draw_scene(fbw, fbh);

        if (lamina_flush() != LAMINA_OK) { printf("glfw-host: flush failed: %s\n", lamina_last_error()); failures++; break; }
        frames++;

        GLint bound = -1, scissor[4] = {0}, scissorOn = 0;
        GLfloat clear[4] = {0};
        glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
        glGetIntegerv(GL_SCISSOR_BOX, scissor);
        scissorOn = glIsEnabled(GL_SCISSOR_TEST);
        glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
        if (bound != 0 || !scissorOn || scissor[0] != 5 || scissor[2] != 7 || clear[0] < 0.29f || clear[0] > 0.31f) {
            printf("glfw-host: FAILED: the application's GL state changed (framebuffer %d, scissor %d %d,%d %dx%d, clear %.2f)\n",
                   bound, scissorOn, scissor[0], scissor[1], scissor[2], scissor[3], clear[0]);
            failures++;
            break;
        }
        if (clicks > 0 && now() - clicked_at > 0.5 && (keys > 0 || now() - clicked_at > 5)) {
            uint8_t p[4], q[4];
            glReadPixels(80, fbh - 45, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, p);   /* the button's centre (y up) */
            glReadPixels(200, 10, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, q);        /* the orange bar */
            int green = p[1] > 180 && p[0] < 60 && p[2] < 90, orange = q[0] > 240 && q[1] > 110 && q[1] < 145 && q[2] < 20;
            printf("glfw-host: button %d,%d,%d (%s), host scene %d,%d,%d (%s), %d frames, GL state intact\n",
                   p[0], p[1], p[2], green ? "green" : "NOT green", q[0], q[1], q[2], orange ? "orange" : "NOT orange", frames);
            if (!green || !orange) failures++;
            glfwSwapBuffers(window);
            /* LAMINA_HOST_MEASURE=N: N more frames, every other one without the HUD. */
            frame_cost cost;
            frame_cost_init(&cost);
            while (frame_cost_running(&cost)) {
                frame_cost_begin(&cost);
                draw_scene(fbw, fbh);
                if (frame_cost_hud(&cost)) {
                    frame_cost_lamina_begin(&cost);
                    if (lamina_flush() != LAMINA_OK) { failures++; break; }
                    frame_cost_lamina_end(&cost);
                }
                glFinish();
                frame_cost_end(&cost);
                glfwSwapBuffers(window);
                glfwPollEvents();
            }
            if (cost.wanted) frame_cost_report(&cost, egl ? "glfw-host (EGL, ES 3)" : core ? "glfw-host (GLX, 3.3 core)" : "glfw-host (GLX, compatibility)");
            break;
        }
        glfwSwapBuffers(window);
        glfwPollEvents();
    }
    if (clicks == 0) { printf("glfw-host: FAILED: no click reached the button in 20 s (%d frames)\n", frames); failures++; }
    if (keys == 0 || strcmp(typed, "b") != 0) {
        printf("glfw-host: FAILED: the key 'b' did not reach the button (%d key events, text \"%s\")\n", keys, typed);
        failures++;
    } else printf("glfw-host: the key 'b' and its text \"%s\" reached the button (first responder)\n", typed);
    if (entered == 0) { printf("glfw-host: FAILED: the pointer never entered the button (no hover event)\n"); failures++; }
    else printf("glfw-host: the pointer entered the button %d time(s) before the click\n", entered);

    /* A device of Lamina's own (its EGL context) while the application's context is current:
     * with GLX, Lamina releases the application's context and puts it back when it returns. */
    lamina_device *own = NULL;
    lamina_target *offscreen = NULL;
    lamina_layer *swatch = NULL;
    lamina_host *offscreen_host = NULL;
    uint8_t swatch_pixel[4] = {0};
    lamina_color red = {1, 0, 0, 1};
    if (lamina_device_create("surfaceless", NULL, &own) != LAMINA_OK
        || lamina_target_create_offscreen(own, 4, 4, 1, &offscreen) != LAMINA_OK
        || lamina_layer_create(&swatch) != LAMINA_OK
        || lamina_layer_set_frame(swatch, (lamina_rect){0, 0, 4, 4}) != LAMINA_OK
        || lamina_layer_set_background_color(swatch, &red) != LAMINA_OK
        || lamina_host_create(swatch, offscreen, NULL, &offscreen_host) != LAMINA_OK
        || lamina_flush() != LAMINA_OK
        || lamina_target_read_pixels(offscreen, LAMINA_PIXEL_RGBA8, swatch_pixel, 16, 64) != LAMINA_OK) {
        printf("glfw-host: FAILED: Lamina's own device: %s\n", lamina_last_error());
        failures++;
    }
    /* The application's context is current again: its own GL still reaches its window. */
    uint8_t after[4] = {0};
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0, 0, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glReadPixels(10, 10, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, after);
    int own_ok = swatch_pixel[0] == 255 && swatch_pixel[1] == 0, host_ok = after[2] == 255 && after[0] == 0 && glGetError() == GL_NO_ERROR;
    printf("glfw-host: Lamina's own device drew %d,%d,%d (%s); the application's context %s\n", swatch_pixel[0], swatch_pixel[1],
           swatch_pixel[2], own_ok ? "red" : "NOT red", host_ok ? "is current again and draws" : "was NOT given back");
    if (!own_ok || !host_ok) failures++;
    lamina_release(offscreen_host);
    lamina_release(swatch);
    lamina_release(offscreen);
    lamina_release(own);
    lamina_release(host);
    lamina_release(button_layer);
    lamina_release(button);
    lamina_release(hud);
    lamina_release(target);
    lamina_release(device);
    /* After Lamina's adopted device is gone, the application's context is still current. */
    glClearColor(0, 1, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glReadPixels(10, 10, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, after);
    if (after[1] != 255 || after[2] != 0) { printf("glfw-host: FAILED: the application's context after Lamina's release\n"); failures++; }
    glfwDestroyWindow(window);
    glfwTerminate();
    printf("glfw-host: %s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
