/*
 * A GTK 4 application with a Lamina HUD, built the way GTK programs are built
 * (cc gtk-host.c $(pkg-config --cflags --libs gtk4 lamina)):
 * a GtkGLArea with GDK's own context (desktop OpenGL, core profile — on X11 through GLX in
 * GTK 4.8, or EGL with GDK_DEBUG=gl-egl), its own GL scene drawn in ::render, and Lamina's layers composited
 * over it into the area's framebuffer through the adopted context. The HUD is a Lamina window
 * with a button view; GTK's event controllers hand their input to the window, which
 * delivers it as UIKit does (hit testing, the first responder) to the button's event
 * handler: a click turns the button green, a key press ('b', the button being the first
 * responder) turns it blue again. The area does not render by itself
 * (gtk_gl_area_set_auto_render(FALSE)): Lamina's frame requests call
 * gtk_gl_area_queue_render, and GDK's frame clock gives Lamina its frame time.
 *
 * The run checks itself: after the click and after the key it reads the area's framebuffer
 * (the button's colour, the application's scene around it) and the GL state the application
 * set, counts ::render calls over an idle second after each animation (there must be none),
 * prints what it found and exits 0; 1 when a check fails or no input came within 20 s.
 */
#include <gtk/gtk.h>
#include <epoxy/gl.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif
#include <lamina.h>
#include "../frame-cost.h"   /* LAMINA_HOST_MEASURE: the HUD's cost per frame */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 320
#define HEIGHT 240

static lamina_device *device;
static lamina_target *target;
static lamina_host *host;
static lamina_view *hud, *button_view;   /* Lamina's window over the area, and its button */
static lamina_layer *button;             /* the button's layer */
static GLint target_fbo = -1;
static int target_width, target_height;
static int renders, failures, clicks, keys, requests;
static int status = 1;
static GtkWidget *area;
static GApplication *app;
/* What the last ::render read back: the button's centre and the application's bar. */
static guint8 button_pixel[4], bar_pixel[4];

static void fail(const char *what) {
    printf("gtk-host: FAILED: %s%s%s\n", what, lamina_last_error()[0] ? ": " : "", lamina_last_error());
    failures++;
}

static int in_render, request_in_render;
static frame_cost cost;
static int measuring;   /* the checks passed: frames are being measured (LAMINA_HOST_MEASURE) */

static gboolean queue_render_later(gpointer user_data) {
    (void)user_data;
    gtk_gl_area_queue_render(GTK_GL_AREA(area));
    return G_SOURCE_REMOVE;
}

/* Lamina wants a frame: GTK draws the area at its next frame-clock tick. A request made
 * inside ::render (an animation still running when lamina_flush ends) would be lost —
 * GtkGLArea clears its render flag after the signal — so it is queued once render returns. */
static void on_frame_request(void *user_data) {
    (void)user_data;
    requests++;
    if (getenv("GTK_HOST_TRACE")) printf("gtk-host: frame request %d (after %d renders, %d clicks)\n", requests, renders, clicks);
    if (in_render) request_in_render = 1;
    else gtk_gl_area_queue_render(GTK_GL_AREA(area));
}

static int on_button_event(lamina_view *view, const lamina_event *e, void *user_data);

static void on_realize(GtkGLArea *gl_area, gpointer user_data) {
    (void)user_data;
    gtk_gl_area_make_current(gl_area);
    if (gtk_gl_area_get_error(gl_area)) { printf("gtk-host: FAILED: no GL context\n"); failures++; return; }
    if (lamina_device_create_adopting_current(&device) != LAMINA_OK) { fail("Lamina refused GDK's context"); return; }
    GdkGLContext *context = gtk_gl_area_get_context(gl_area);
    int major, minor;
    gdk_gl_context_get_version(context, &major, &minor);
    const char *api = "EGL";
#ifdef GDK_WINDOWING_X11
    GdkDisplay *display = gtk_widget_get_display(GTK_WIDGET(gl_area));
    if (GDK_IS_X11_DISPLAY(display) && !gdk_x11_display_get_egl_display(display)) api = "GLX";
#endif
    printf("gtk-host: realized (%s, GL %d.%d %s through %s, %s)\n", (const char *)glGetString(GL_VERSION), major, minor,
           gdk_gl_context_get_use_es(context) ? "ES" : "desktop", api, lamina_device_backend(device));
    lamina_view_create((lamina_rect){20, 20, 120, 50}, &button_view);
    lamina_view_get_layer(button_view, &button);
    lamina_view_set_event_handler(button_view, on_button_event, NULL, NULL);
    lamina_view_set_accepts_first_responder(button_view, 1);   /* keys go to it */
    lamina_color blue = {0.15, 0.35, 0.9, 1};
    lamina_layer_set_background_color(button, &blue);
    lamina_layer_set_corner_radius(button, 12);
    lamina_set_frame_request_callback(on_frame_request, NULL);
}

static void on_unrealize(GtkGLArea *gl_area, gpointer user_data) {
    (void)user_data;
    gtk_gl_area_make_current(gl_area);
    lamina_set_frame_request_callback(NULL, NULL);
    lamina_release(host);
    lamina_release(button);
    lamina_release(button_view);
    lamina_release(hud);          /* the window goes: it composites no more */
    lamina_release(target);
    lamina_release(device);
    hud = NULL; button_view = NULL; button = NULL; host = NULL; target = NULL; device = NULL;
}

/* Lamina's window on GTK's framebuffer: made at the first render, moved to a new target when
 * the framebuffer or the area's size changed (::resize). */
static int ensure_target(GLint fbo, int width, int height) {
    if (hud && fbo == target_fbo && width == target_width && height == target_height) return 1;
    lamina_target *old = target;
    double scale = gtk_widget_get_scale_factor(area);
    if (lamina_target_create_framebuffer(device, (uint32_t)fbo, (uint32_t)width, (uint32_t)height, scale, &target) != LAMINA_OK) {
        fail("Lamina's target");
        return 0;
    }
    if (hud) {
        if (lamina_window_set_target(hud, target) != LAMINA_OK) { fail("lamina_window_set_target"); return 0; }
    } else if (lamina_window_create(target, NULL, &hud) != LAMINA_OK            /* NULL: over the application's scene */
               || lamina_window_get_host(hud, &host) != LAMINA_OK || lamina_view_add_subview(hud, button_view) != LAMINA_OK
               || lamina_view_become_first_responder(button_view, NULL) != LAMINA_OK) {
        fail("Lamina's window");
        return 0;
    } else {
        lamina_host_set_composites_every_frame(host, 1);   /* the application redraws its scene each render */
    }
    if (old) lamina_release(old);
    target_fbo = fbo; target_width = width; target_height = height;
    return 1;
}

static gboolean on_render(GtkGLArea *gl_area, GdkGLContext *context, gpointer user_data) {
    (void)context; (void)user_data;
    if (!device) return TRUE;
    renders++;
    int hud = !measuring || frame_cost_hud(&cost);
    if (measuring) frame_cost_begin(&cost);
    /* The application's own scene, with its own state. */
    GLint fbo = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo);
    int width = gtk_widget_get_width(GTK_WIDGET(gl_area)) * gtk_widget_get_scale_factor(GTK_WIDGET(gl_area));
    int height = gtk_widget_get_height(GTK_WIDGET(gl_area)) * gtk_widget_get_scale_factor(GTK_WIDGET(gl_area));
    glViewport(0, 0, width, height);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.2f, 0.2f, 0.2f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, width, 30);
    glClearColor(1, 0.5f, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(5, 5, 7, 7);                 /* left set, as an application may */
    glClearColor(0.3f, 0.3f, 0.3f, 1);
    glEnable(GL_FRAMEBUFFER_SRGB);         /* desktop-only state Lamina must leave alone */

    /* Lamina: its animations at GDK's frame time, then its layers over the scene. */
    GdkFrameClock *clock = gtk_widget_get_frame_clock(GTK_WIDGET(gl_area));
    if (clock) lamina_set_frame_time(gdk_frame_clock_get_frame_time(clock) / 1e6);
    if (!ensure_target(fbo, width, height)) return TRUE;
    in_render = 1;
    if (measuring && hud) frame_cost_lamina_begin(&cost);
    lamina_status flushed = hud ? lamina_flush() : LAMINA_OK;
    if (measuring && hud) frame_cost_lamina_end(&cost);
    in_render = 0;
    if (request_in_render) { request_in_render = 0; g_idle_add(queue_render_later, NULL); }
    if (flushed != LAMINA_OK) { fail("lamina_flush"); return TRUE; }

    GLint bound = -1, scissor[4] = {0};
    GLfloat clear[4] = {0};
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &bound);
    glGetIntegerv(GL_SCISSOR_BOX, scissor);
    glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
    if (bound != fbo || !glIsEnabled(GL_SCISSOR_TEST) || scissor[0] != 5 || scissor[2] != 7 || clear[0] < 0.29f || clear[0] > 0.31f
        || !glIsEnabled(GL_FRAMEBUFFER_SRGB)) {
        printf("gtk-host: FAILED: the application's GL state changed (framebuffer %d of %d, scissor %d,%d %dx%d, clear %.2f)\n",
               bound, fbo, scissor[0], scissor[1], scissor[2], scissor[3], clear[0]);
        failures++;
    }
    glDisable(GL_FRAMEBUFFER_SRGB);
    if (!measuring) {
        glReadPixels(80, height - 45, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, button_pixel);   /* the button's centre (y up) */
        glReadPixels(200, 10, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, bar_pixel);              /* the orange bar */
    }
    if (renders == 1) { printf("gtk-host: ready (%dx%d px, framebuffer %d)\n", width, height, fbo); fflush(stdout); }
    if (measuring) {
        glFinish();
        frame_cost_end(&cost);
        if (frame_cost_running(&cost)) g_idle_add(queue_render_later, NULL);
        else {
            const char *debug = getenv("GDK_DEBUG");
            frame_cost_report(&cost, debug && strstr(debug, "gl-egl") ? "gtk-host (EGL)" : "gtk-host (GDK default: GLX)");
            g_application_quit(app);
        }
    }
    return TRUE;
}

static double seconds(void) { return (double)g_get_monotonic_time() / 1e6; }

/* GTK's input to Lamina's window (area coordinates = points). */
static void on_pressed(GtkGestureClick *gesture, int n_press, double x, double y, gpointer user_data) {
    (void)gesture; (void)n_press; (void)user_data;
    if (hud) lamina_window_send_touch(hud, 0, LAMINA_EVENT_TOUCH_BEGAN, (lamina_point){x, y}, seconds());
}
static void on_released(GtkGestureClick *gesture, int n_press, double x, double y, gpointer user_data) {
    (void)gesture; (void)n_press; (void)user_data;
    if (hud) lamina_window_send_touch(hud, 0, LAMINA_EVENT_TOUCH_ENDED, (lamina_point){x, y}, seconds());
}
/* Letter keys as USB HID usages (a = 0x04 … z = 0x1D), with the text they type. */
static int send_key(guint keyval, GdkModifierType state, lamina_event_type phase) {
    guint lower = gdk_keyval_to_lower(keyval);
    if (!hud || lower < GDK_KEY_a || lower > GDK_KEY_z) return 0;
    char text[8] = {0};
    g_unichar_to_utf8(gdk_keyval_to_unicode(keyval), text);
    unsigned modifiers = (state & GDK_SHIFT_MASK ? LAMINA_MODIFIER_SHIFT : 0) | (state & GDK_CONTROL_MASK ? LAMINA_MODIFIER_CONTROL : 0)
                       | (state & GDK_ALT_MASK ? LAMINA_MODIFIER_ALT : 0) | (state & GDK_SUPER_MASK ? LAMINA_MODIFIER_SUPER : 0);
    return lamina_window_send_key(hud, phase, 0x04 + (int)(lower - GDK_KEY_a), modifiers, text, seconds()) == LAMINA_OK;
}
static gboolean on_key(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, gpointer user_data) {
    (void)controller; (void)keycode; (void)user_data;
    return send_key(keyval, state, LAMINA_EVENT_KEY_DOWN);
}
static void on_key_released(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, gpointer user_data) {
    (void)controller; (void)keycode; (void)user_data;
    send_key(keyval, state, LAMINA_EVENT_KEY_UP);
}

/* The button's events: a click turns it green, 'b' blue (both implicit animations: Lamina
 * asks for frames). */
static int on_button_event(lamina_view *view, const lamina_event *e, void *user_data) {
    (void)view; (void)user_data;
    if (e->type == LAMINA_EVENT_TOUCH_BEGAN) {
        lamina_color green = {0.1, 0.8, 0.2, 1};
        lamina_layer_set_background_color(button, &green);
        clicks++;
        printf("gtk-host: click at (%.0f, %.0f) in the button\n", e->location.x, e->location.y);
        return 1;
    }
    if (e->type == LAMINA_EVENT_KEY_DOWN && e->key_code == 0x05) {   /* B */
        lamina_color blue = {0.15, 0.35, 0.9, 1};
        lamina_layer_set_background_color(button, &blue);
        keys++;
        printf("gtk-host: key '%s' (HID 0x%02x) reached the button: blue\n", e->text, e->key_code);
        return 1;
    }
    return e->type <= LAMINA_EVENT_TOUCH_CANCELLED;   /* touches handled; other keys passed on */
}

/* Every 100 ms: once an input's animation is over, one idle second must bring no render. */
static gboolean check(gpointer user_data) {
    (void)user_data;
    static int phase = 0, ticks = 0, renders_at_start = 0;
    ticks++;
    if (ticks > 200) { printf("gtk-host: FAILED: no click and key within 20 s (%d clicks, %d keys)\n", clicks, keys); failures++; goto done; }
    int waiting_for = phase == 0 ? clicks : keys;
    static int since = 0;
    if (!waiting_for) return G_SOURCE_CONTINUE;
    since++;
    if (since == 6) renders_at_start = renders;   /* 0.6 s after the input: the 0.25 s animation is over */
    if (since < 16) return G_SOURCE_CONTINUE;     /* then one idle second */
    int idle = renders - renders_at_start;
    int green = button_pixel[1] > 180 && button_pixel[0] < 60 && button_pixel[2] < 90;
    int blue = button_pixel[2] > 200 && button_pixel[0] < 60 && button_pixel[1] < 110;
    int orange = bar_pixel[0] > 240 && bar_pixel[1] > 110 && bar_pixel[1] < 145 && bar_pixel[2] < 20;
    printf("gtk-host: after the %s: button %d,%d,%d (%s), the application's bar %d,%d,%d (%s), %d renders in the idle second, "
           "%d renders and %d frame requests so far\n", phase == 0 ? "click" : "key", button_pixel[0], button_pixel[1], button_pixel[2],
           phase == 0 ? (green ? "green" : "NOT green") : (blue ? "blue" : "NOT blue"), bar_pixel[0], bar_pixel[1], bar_pixel[2],
           orange ? "orange" : "NOT orange", idle, renders, requests);
    if ((phase == 0 ? !green : !blue) || !orange || idle != 0) failures++;
    since = 0;
    if (++phase < 2) { printf("gtk-host: waiting for the key\n"); fflush(stdout); return G_SOURCE_CONTINUE; }
done:
    status = failures ? 1 : 0;
    printf("gtk-host: %s\n", failures ? "FAILED" : "all checks passed");
    frame_cost_init(&cost);
    if (!failures && frame_cost_running(&cost)) {   /* LAMINA_HOST_MEASURE=N: N more renders, every other one without the HUD */
        measuring = 1;
        gtk_gl_area_queue_render(GTK_GL_AREA(area));
        return G_SOURCE_REMOVE;
    }
    g_application_quit(app);
    return G_SOURCE_REMOVE;
}

static void on_activate(GtkApplication *application, gpointer user_data) {
    (void)user_data;
    GtkWidget *window = gtk_application_window_new(application);
    gtk_window_set_title(GTK_WINDOW(window), "lamina-gtk");
    gtk_window_set_decorated(GTK_WINDOW(window), FALSE);   /* no client-side title bar: area = window */
    gtk_window_set_default_size(GTK_WINDOW(window), WIDTH, HEIGHT);
    gtk_window_set_resizable(GTK_WINDOW(window), FALSE);
    area = gtk_gl_area_new();
    gtk_gl_area_set_has_stencil_buffer(GTK_GL_AREA(area), TRUE);   /* Lamina's exact clips */
    gtk_gl_area_set_auto_render(GTK_GL_AREA(area), FALSE);         /* render only when asked */
    g_signal_connect(area, "realize", G_CALLBACK(on_realize), NULL);
    g_signal_connect(area, "unrealize", G_CALLBACK(on_unrealize), NULL);
    g_signal_connect(area, "render", G_CALLBACK(on_render), NULL);
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_pressed), NULL);
    g_signal_connect(click, "released", G_CALLBACK(on_released), NULL);
    gtk_widget_add_controller(area, GTK_EVENT_CONTROLLER(click));
    GtkEventController *keyboard = gtk_event_controller_key_new();
    g_signal_connect(keyboard, "key-pressed", G_CALLBACK(on_key), NULL);
    g_signal_connect(keyboard, "key-released", G_CALLBACK(on_key_released), NULL);
    gtk_widget_add_controller(window, keyboard);
    gtk_window_set_child(GTK_WINDOW(window), area);
    gtk_window_present(GTK_WINDOW(window));
    g_timeout_add(100, check, NULL);
}

int main(int argc, char **argv) {
    GtkApplication *application = gtk_application_new("org.lamina.GtkHost", G_APPLICATION_NON_UNIQUE);
    app = G_APPLICATION(application);
    g_signal_connect(application, "activate", G_CALLBACK(on_activate), NULL);
    g_application_run(app, argc, argv);
    g_object_unref(application);
    return status;
}
