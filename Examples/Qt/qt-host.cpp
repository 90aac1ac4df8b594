// A Qt 6 application with a Lamina HUD, built the way Qt programs are built
// (c++ -std=c++17 -fPIC qt-host.cpp $(pkg-config --cflags --libs Qt6OpenGL Qt6Gui lamina)):
// a QOpenGLWindow with Qt's own context (desktop OpenGL; on X11 through GLX by default,
// or EGL with QT_XCB_GL_INTEGRATION=xcb_egl), its own GL scene drawn in paintGL, and
// Lamina's layers composited over it into defaultFramebufferObject() through the adopted
// context. Qt's events reach Lamina: a mouse press goes through Lamina's hit testing (the
// button turns green), a key press ('B') turns it blue again. The window paints only when
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
        lamina_release(target);
        lamina_release(button);
        lamina_release(root);
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
        lamina_layer_create(&root);
        lamina_layer_set_frame(root, {0, 0, windowWidth, windowHeight});
        lamina_layer_create(&button);
        lamina_layer_set_frame(button, {20, 20, 120, 50});
        lamina_color blue = {0.15, 0.35, 0.9, 1};
        lamina_layer_set_background_color(button, &blue);
        lamina_layer_set_corner_radius(button, 12);
        lamina_layer_add_sublayer(root, button);
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

    void mousePressEvent(QMouseEvent *event) override {
        lamina_layer *hit = nullptr;
        QPointF p = event->position();
        if (lamina_layer_hit_test(root, {p.x(), p.y()}, &hit) != LAMINA_OK || !hit) return;
        if (hit == button) {
            lamina_color green = {0.1, 0.8, 0.2, 1};
            lamina_layer_set_background_color(button, &green);   // an implicit animation: Lamina asks for frames
            clicks++;
            std::printf("qt-host: click at (%.0f, %.0f) hit the button\n", p.x(), p.y());
        }
        lamina_release(hit);
    }

    void keyPressEvent(QKeyEvent *event) override {
        if (event->key() != Qt::Key_B) return;
        lamina_color blue = {0.15, 0.35, 0.9, 1};
        lamina_layer_set_background_color(button, &blue);
        keys++;
        std::printf("qt-host: key 'b' turns the button blue\n");
    }

private:
    lamina_device *device = nullptr;
    lamina_target *target = nullptr;
    lamina_host *host = nullptr;
    lamina_layer *root = nullptr, *button = nullptr;
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

    bool ensureTarget(GLuint fbo, int w, int h) {
        if (host && fbo == targetFBO && w == targetWidth && h == targetHeight) return true;
        if (host) { lamina_host_detach(host); lamina_release(host); lamina_release(target); host = nullptr; target = nullptr; }
        if (lamina_target_create_framebuffer(device, fbo, uint32_t(w), uint32_t(h), devicePixelRatio(), &target) != LAMINA_OK
            || lamina_host_create(root, target, nullptr, &host) != LAMINA_OK) { fail("Lamina's target"); return false; }
        lamina_host_set_composites_every_frame(host, 1);   // the application redraws its scene each paint
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
