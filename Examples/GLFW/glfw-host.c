/*
 * A GLFW application with a Lamina HUD, built the way GLFW programs are built
 * (cc glfw-host.c $(pkg-config --cflags --libs glfw3 lamina glesv2)):
 * a window with an OpenGL ES 3 context made through EGL, the application's own GL scene
 * each frame, and Lamina's layers composited over it in the same framebuffer, through the
 * adopted context. GLFW's mouse input reaches Lamina's layers through hit testing: a click
 * on the button turns it green. The run checks itself: after the click it reads the
 * framebuffer (the button green, the application's scene around it) and the GL state the
 * application set (its framebuffer, scissor, clear colour, program), prints what it found
 * and exits 0; 1 when a check fails or no click came within 20 s.
 *
 *   glfw-host [--glx]   --glx: GLFW's defaults (desktop OpenGL through GLX), which Lamina
 *                       cannot adopt yet: it prints Lamina's error and exits 3.
 */
#define _POSIX_C_SOURCE 200809L
#include <GLFW/glfw3.h>
#include <GLES3/gl3.h>
#include <lamina.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static lamina_layer *root, *button;
static int clicks = 0;
static double clicked_at = 0;
static double now(void);

static void on_mouse(GLFWwindow *window, int which, int action, int mods) {
    (void)mods;
    if (which != GLFW_MOUSE_BUTTON_LEFT || action != GLFW_PRESS) return;
    double x, y;
    glfwGetCursorPos(window, &x, &y);   /* window coordinates = points (scale 1) */
    lamina_layer *hit = NULL;
    if (lamina_layer_hit_test(root, (lamina_point){x, y}, &hit) != LAMINA_OK || !hit) return;
    if (hit == button) {
        lamina_color green = {0.1, 0.8, 0.2, 1};
        lamina_layer_set_background_color(button, &green);
        clicks++;
        clicked_at = now();   /* the colour animates (an implicit action, 0.25 s) */
        printf("glfw-host: click at (%.0f, %.0f) hit the button\n", x, y);
    }
    lamina_release(hit);
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    int glx = argc > 1 && strcmp(argv[1], "--glx") == 0;
    if (!glfwInit()) { fprintf(stderr, "glfw-host: glfwInit failed (no X display?)\n"); return 1; }
    if (!glx) {
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
        glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    }
    glfwWindowHint(GLFW_STENCIL_BITS, 8);     /* Lamina's exact clips use the stencil */
    glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    GLFWwindow *window = glfwCreateWindow(320, 240, "lamina-glfw", NULL, NULL);
    if (!window) { fprintf(stderr, "glfw-host: no window\n"); glfwTerminate(); return 1; }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(0);
    glfwSetMouseButtonCallback(window, on_mouse);
    int fbw, fbh;
    glfwGetFramebufferSize(window, &fbw, &fbh);

    lamina_device *device;
    if (lamina_device_create_adopting_current(&device) != LAMINA_OK) {
        printf("glfw-host: Lamina refused the context: %s\n", lamina_last_error());
        glfwTerminate();
        return glx ? 3 : 1;
    }
    lamina_target *target;
    lamina_host *host;
    lamina_layer_create(&root);
    lamina_layer_set_frame(root, (lamina_rect){0, 0, 320, 240});
    lamina_layer_create(&button);
    lamina_layer_set_frame(button, (lamina_rect){20, 20, 120, 50});
    lamina_color blue = {0.15, 0.35, 0.9, 1};
    lamina_layer_set_background_color(button, &blue);
    lamina_layer_set_corner_radius(button, 12);
    lamina_layer_add_sublayer(root, button);
    if (lamina_target_create_framebuffer(device, 0, (uint32_t)fbw, (uint32_t)fbh, 1, &target) != LAMINA_OK
        || lamina_host_create(root, target, NULL, &host) != LAMINA_OK) {
        printf("glfw-host: %s\n", lamina_last_error());
        return 1;
    }
    lamina_host_set_composites_every_frame(host, 1);
    printf("glfw-host: ready (%s, %s)\n", (const char *)glGetString(GL_VERSION), lamina_device_backend(device));
    fflush(stdout);

    int failures = 0, frames = 0;
    double start = now();
    while (!glfwWindowShouldClose(window) && now() - start < 20) {
        /* The application's own scene: dark grey, an orange bar at the bottom, drawn with its
         * own state (which Lamina must leave as it found it). */
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
        if (clicks > 0 && now() - clicked_at > 0.5) {
            uint8_t p[4], q[4];
            glReadPixels(80, fbh - 45, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, p);   /* the button's centre (y up) */
            glReadPixels(200, 10, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, q);        /* the orange bar */
            int green = p[1] > 180 && p[0] < 60 && p[2] < 90, orange = q[0] > 240 && q[1] > 110 && q[1] < 145 && q[2] < 20;
            printf("glfw-host: button %d,%d,%d (%s), host scene %d,%d,%d (%s), %d frames, GL state intact\n",
                   p[0], p[1], p[2], green ? "green" : "NOT green", q[0], q[1], q[2], orange ? "orange" : "NOT orange", frames);
            if (!green || !orange) failures++;
            glfwSwapBuffers(window);
            break;
        }
        glfwSwapBuffers(window);
        glfwPollEvents();
    }
    if (clicks == 0) { printf("glfw-host: FAILED: no click reached the button in 20 s (%d frames)\n", frames); failures++; }
    lamina_release(host);
    lamina_release(button);
    lamina_release(root);
    lamina_release(target);
    lamina_release(device);
    glfwDestroyWindow(window);
    glfwTerminate();
    printf("glfw-host: %s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
