// A Qt 6 application with a Lamina HUD, built the way Qt programs are built
// (c++ -std=c++17 -fPIC qt-host.cpp $(pkg-config --cflags --libs Qt6OpenGL Qt6Gui lamina)):
// a QOpenGLWindow with Qt's own context (desktop OpenGL; on X11 through GLX by default,
// or EGL with QT_XCB_GL_INTEGRATION=xcb_egl), its own GL scene drawn in paintGL, and
// Lamina's layers composited over it into defaultFramebufferObject() through the adopted
// context. The HUD is a Lamina window with a button view; Qt's events go to the window, which
// delivers them as UIKit does (hit testing, the first responder) to the button's event
// handler: a click turns the button green, a key press ('B', the button being the first
// responder) turns it blue again. The window paints only when
// asked: Lamina's frame requests call QWindow::requestUpdate() (Qt's frame clock), and each
// paint passes its time to Lamina.
//
// The run checks itself: after the click and after the key it reads the framebuffer (the
// button's colour, the application's scene around it) and the GL state the application set,
// counts paints over an idle second after each animation (there must be none), prints what
// it found and exits 0; 1 when a check fails or no input came within 20 s.
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QtGui/qopenglcontext_platform.h>
#include <QOpenGLFunctions>
#include <QOpenGLWindow>
#include <QTimer>

#include <lamina.h>
#include "../frame-cost.h"   // LAMINA_HOST_MEASURE: the HUD's cost per frame

#include <cstdio>
#include <string_view>
#include <ctime>

namespace {

constexpr int windowWidth = 320, windowHeight = 240;

double monotonic() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

class HostWindow : public QOpenGLWindow, protected QOpenGLFunctions {
public:
    int paints = 0, failures = 0, clicks = 0, keys = 0, requests = 0;
    unsigned char buttonPixel[4] = {}, barPixel[4] = {};
    frame_cost cost = {};
    bool measuring = false;   // the checks passed: frames are being measured (LAMINA_HOST_MEASURE)

    // LAMINA_HOST_MEASURE=N: N more paints, every other one without the HUD; false when none are asked for.
    bool startMeasuring() {
        frame_cost_init(&cost);
        if (!frame_cost_running(&cost)) return false;
        measuring = true;
        requestUpdate();
        return true;
    }

    ~HostWindow() override {
        makeCurrent();
        lamina_set_frame_request_callback(nullptr, nullptr);
        lamina_release(host);
        lamina_release(button);
        lamina_release(buttonView);
        lamina_release(hud);          // the window goes: it composites no more
        lamina_release(target);
        lamina_release(device);
        doneCurrent();
    }

    void fail(const char *what) {
        std::printf("qt-host: FAILED: %s: %s\n", what, lamina_last_error());
        failures++;
    }

protected:
    void initializeGL() override {
        initializeOpenGLFunctions();
        if (lamina_device_create_adopting_current(&device) != LAMINA_OK) { fail("Lamina refused Qt's context"); return; }
        QSurfaceFormat format = context()->format();
        std::printf("qt-host: initialized (%s, %s profile, %s, %s)\n", reinterpret_cast<const char *>(glGetString(GL_VERSION)),
                    format.profile() == QSurfaceFormat::CoreProfile ? "core" : "compatibility",
                    context()->nativeInterface<QNativeInterface::QGLXContext>() ? "through GLX"
                    : context()->nativeInterface<QNativeInterface::QEGLContext>() ? "through EGL" : "through ?",
                    lamina_device_backend(device));
        lamina_view_create({20, 20, 120, 50}, &buttonView);
        lamina_view_get_layer(buttonView, &button);
        lamina_view_set_event_handler(buttonView, [](lamina_view *, const lamina_event *e, void *self) {
            return static_cast<HostWindow *>(self)->buttonEvent(*e);
        }, this, nullptr);
        lamina_view_set_accepts_first_responder(buttonView, 1);   // keys go to it
        lamina_color blue = {0.15, 0.35, 0.9, 1};
        lamina_layer_set_background_color(button, &blue);
        lamina_layer_set_corner_radius(button, 12);
        lamina_set_frame_request_callback([](void *self) { static_cast<HostWindow *>(self)->frameRequested(); }, this);
    }

    void paintGL() override {
        if (!device) return;
        paints++;
        bool hud = !measuring || frame_cost_hud(&cost);
        if (measuring) frame_cost_begin(&cost);
        GLuint fbo = defaultFramebufferObject();
        int w = int(this->width() * devicePixelRatio()), h = int(this->height() * devicePixelRatio());
        // The application's own scene, with its own state.
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glViewport(0, 0, w, h);
        glDisable(GL_SCISSOR_TEST);
        glClearColor(0.2f, 0.2f, 0.2f, 1);
        glClear(GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
        glEnable(GL_SCISSOR_TEST);
        glScissor(0, 0, w, 30);
        glClearColor(1, 0.5f, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        glScissor(5, 5, 7, 7);                  // left set, as an application may
        glClearColor(0.3f, 0.3f, 0.3f, 1);

        // Lamina: its animations at this paint's time, then its layers over the scene.
        lamina_set_frame_time(monotonic());
        if (!ensureTarget(fbo, w, h)) return;
        inPaint = true;
        if (measuring && hud) frame_cost_lamina_begin(&cost);
        lamina_status flushed = hud ? lamina_flush() : LAMINA_OK;
        if (measuring && hud) frame_cost_lamina_end(&cost);
        inPaint = false;
        if (requestInPaint) { requestInPaint = false; QTimer::singleShot(0, this, [this] { requestUpdate(); }); }
        if (flushed != LAMINA_OK) { fail("lamina_flush"); return; }

        GLint bound = -1, scissor[4] = {};
        GLfloat clear[4] = {};
        glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
        glGetIntegerv(GL_SCISSOR_BOX, scissor);
        glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
        if (GLuint(bound) != fbo || !glIsEnabled(GL_SCISSOR_TEST) || scissor[0] != 5 || scissor[2] != 7 || clear[0] < 0.29f || clear[0] > 0.31f) {
            std::printf("qt-host: FAILED: the application's GL state changed (framebuffer %d of %u, scissor %d,%d %dx%d, clear %.2f)\n",
                        bound, fbo, scissor[0], scissor[1], scissor[2], scissor[3], double(clear[0]));
            failures++;
        }
        if (measuring) {
            glFinish();
            frame_cost_end(&cost);
            if (frame_cost_running(&cost)) { QTimer::singleShot(0, this, [this] { requestUpdate(); }); return; }
            bool egl = context()->nativeInterface<QNativeInterface::QEGLContext>() != nullptr;
            frame_cost_report(&cost, egl ? "qt-host (EGL)" : format().profile() == QSurfaceFormat::CoreProfile
                                                                 ? "qt-host (GLX, 3.3 core)" : "qt-host (GLX, compatibility)");
            QGuiApplication::exit(failures ? 1 : 0);
            return;
        }
        glReadPixels(80, h - 45, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, buttonPixel);   // the button's centre (y up)
        glReadPixels(200, 10, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, barPixel);         // the orange bar
        if (paints == 1) { std::printf("qt-host: ready (%dx%d px, framebuffer %u)\n", w, h, fbo); std::fflush(stdout); }
    }

    // Qt's input to Lamina's window (window coordinates = points).
    void mousePressEvent(QMouseEvent *event) override { touch(event, LAMINA_EVENT_TOUCH_BEGAN); }
    void mouseReleaseEvent(QMouseEvent *event) override { touch(event, LAMINA_EVENT_TOUCH_ENDED); }
    void keyPressEvent(QKeyEvent *event) override { key(event, LAMINA_EVENT_KEY_DOWN); }   // (an auto-repeat: down again)
    void keyReleaseEvent(QKeyEvent *event) override { if (!event->isAutoRepeat()) key(event, LAMINA_EVENT_KEY_UP); }

    // The button's events: a click turns it green, 'B' blue (both implicit animations:
    // Lamina asks for frames).
    int buttonEvent(const lamina_event &e) {
        if (e.type == LAMINA_EVENT_TOUCH_BEGAN) {
            lamina_color green = {0.1, 0.8, 0.2, 1};
            lamina_layer_set_background_color(button, &green);
            clicks++;
            std::printf("qt-host: click at (%.0f, %.0f) in the button\n", e.location.x, e.location.y);
            return 1;
        }
        if (e.type == LAMINA_EVENT_KEY_DOWN && e.key_code == 0x05) {   // B
            lamina_color blue = {0.15, 0.35, 0.9, 1};
            lamina_layer_set_background_color(button, &blue);
            keys++;
            std::printf("qt-host: key '%s' (HID 0x%02x) reached the button: blue\n", e.text, e.key_code);
            return 1;
        }
        return e.type <= LAMINA_EVENT_TOUCH_CANCELLED;   // touches handled; other keys passed on
    }

private:
    lamina_device *device = nullptr;
    lamina_target *target = nullptr;
    lamina_host *host = nullptr;
    lamina_view *hud = nullptr, *buttonView = nullptr;   // Lamina's window over Qt's, and its button
    lamina_layer *button = nullptr;                      // the button's layer

    static double seconds() { return monotonic(); }
    void touch(QMouseEvent *event, lamina_event_type phase) {
        if (!hud || event->button() != Qt::LeftButton) return;
        QPointF p = event->position();
        lamina_window_send_touch(hud, 0, phase, {p.x(), p.y()}, seconds());
    }
    // Letter keys as USB HID usages (A = 0x04 … Z = 0x1D), with the text they type.
    void key(QKeyEvent *event, lamina_event_type phase) {
        if (!hud || event->key() < Qt::Key_A || event->key() > Qt::Key_Z) return;
        Qt::KeyboardModifiers m = event->modifiers();
        unsigned modifiers = (m & Qt::ShiftModifier ? LAMINA_MODIFIER_SHIFT : 0) | (m & Qt::ControlModifier ? LAMINA_MODIFIER_CONTROL : 0)
                           | (m & Qt::AltModifier ? LAMINA_MODIFIER_ALT : 0) | (m & Qt::MetaModifier ? LAMINA_MODIFIER_SUPER : 0);
        QByteArray text = event->text().toUtf8();
        lamina_window_send_key(hud, phase, 0x04 + (event->key() - Qt::Key_A), modifiers, text.constData(), seconds());
    }
    GLuint targetFBO = 0;
    int targetWidth = 0, targetHeight = 0;
    bool inPaint = false, requestInPaint = false;

    // Lamina wants a frame: Qt paints at its next update. A request made inside paintGL
    // (an animation still running when lamina_flush ends) is posted for after it.
    void frameRequested() {
        requests++;
        if (inPaint) requestInPaint = true;
        else requestUpdate();
    }

    // Lamina's window on Qt's framebuffer: made at the first paint, moved to a new target
    // when the framebuffer or the window's size changed.
    bool ensureTarget(GLuint fbo, int w, int h) {
        if (hud && fbo == targetFBO && w == targetWidth && h == targetHeight) return true;
        lamina_target *old = target;
        if (lamina_target_create_framebuffer(device, fbo, uint32_t(w), uint32_t(h), devicePixelRatio(), &target) != LAMINA_OK) {
            fail("Lamina's target");
            return false;
        }
        if (hud) {
            if (lamina_window_set_target(hud, target) != LAMINA_OK) { fail("lamina_window_set_target"); return false; }
        } else if (lamina_window_create(target, nullptr, &hud) != LAMINA_OK            // nullptr: over the application's scene
                   || lamina_window_get_host(hud, &host) != LAMINA_OK || lamina_view_add_subview(hud, buttonView) != LAMINA_OK
                   || lamina_view_become_first_responder(buttonView, nullptr) != LAMINA_OK) {
            fail("Lamina's window");
            return false;
        } else {
            lamina_host_set_composites_every_frame(host, 1);   // the application redraws its scene each paint
        }
        if (old) lamina_release(old);
        targetFBO = fbo; targetWidth = w; targetHeight = h;
        return true;
    }
};

}  // namespace

int main(int argc, char **argv) {
    QSurfaceFormat format;
    format.setStencilBufferSize(8);             // Lamina's exact clips
    if (argc > 1 && std::string_view(argv[1]) == "--core") {
        format.setVersion(3, 3);
        format.setProfile(QSurfaceFormat::CoreProfile);
    }
    QSurfaceFormat::setDefaultFormat(format);
    QGuiApplication app(argc, argv);
    HostWindow window;
    window.setTitle("lamina-qt");
    window.setFlags(Qt::FramelessWindowHint);
    window.resize(windowWidth, windowHeight);
    window.show();

    // Every 100 ms: once an input's animation is over, one idle second must bring no paint.
    int phase = 0, ticks = 0, since = 0, paintsAtStart = 0, status = 1;
    QTimer timer;
    QObject::connect(&timer, &QTimer::timeout, [&] {
        if (++ticks > 200) {
            std::printf("qt-host: FAILED: no click and key within 20 s (%d clicks, %d keys)\n", window.clicks, window.keys);
            window.failures++;
            app.exit(1);
            return;
        }
        if ((phase == 0 ? window.clicks : window.keys) == 0) return;
        if (++since == 6) paintsAtStart = window.paints;   // 0.6 s after the input: the 0.25 s animation is over
        if (since < 16) return;                            // then one idle second
        const unsigned char *b = window.buttonPixel, *q = window.barPixel;
        int idle = window.paints - paintsAtStart;
        bool green = b[1] > 180 && b[0] < 60 && b[2] < 90, blue = b[2] > 200 && b[0] < 60 && b[1] < 110;
        bool orange = q[0] > 240 && q[1] > 110 && q[1] < 145 && q[2] < 20;
        std::printf("qt-host: after the %s: button %d,%d,%d (%s), the application's bar %d,%d,%d (%s), %d paints in the idle second, "
                    "%d paints and %d frame requests so far\n", phase == 0 ? "click" : "key", b[0], b[1], b[2],
                    phase == 0 ? (green ? "green" : "NOT green") : (blue ? "blue" : "NOT blue"), q[0], q[1], q[2],
                    orange ? "orange" : "NOT orange", idle, window.paints, window.requests);
        if (!(phase == 0 ? green : blue) || !orange || idle != 0) window.failures++;
        since = 0;
        if (++phase < 2) { std::printf("qt-host: waiting for the key\n"); std::fflush(stdout); return; }
        status = window.failures ? 1 : 0;
        std::printf("qt-host: %s\n", window.failures ? "FAILED" : "all checks passed");
        std::fflush(stdout);
        timer.stop();
        if (status == 0 && window.startMeasuring()) return;   // it exits when the frames are measured
        app.exit(status);
    });
    timer.start(100);
    int code = app.exec();
    return code != 0 ? code : status;
}
