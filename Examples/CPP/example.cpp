// Lamina from C++: a small RAII wrapper over the C API (in this example, not in the
// library), rendering a tree with a Cairo draw callback offscreen and checking pixels, then
// a window whose button view takes a click through its C++ event handler.
//
//   c++ -std=c++17 example.cpp $(pkg-config --cflags --libs lamina) -o example && ./example
#include <lamina.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lam {

// A failing call throws, with the library's message.
struct Error : std::runtime_error {
    lamina_status status;
    Error(lamina_status s, const std::string &what) : std::runtime_error(what), status(s) {}
};

inline void check(lamina_status s, const char *call) {
    // (The library's message starts with the function's name.)
    if (s != LAMINA_OK) throw Error(s, lamina_last_error() ? lamina_last_error() : call);
}

// One reference to a handle: copied with lamina_retain, dropped with lamina_release.
template <typename T> class Handle {
public:
    Handle() = default;
    explicit Handle(T *adopted) : h_(adopted) {}
    Handle(const Handle &o) : h_(o.h_) { if (h_) check(lamina_retain(h_), "lamina_retain"); }
    Handle(Handle &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    Handle &operator=(Handle o) noexcept { std::swap(h_, o.h_); return *this; }
    ~Handle() { if (h_) lamina_release(h_); }
    T *get() const { return h_; }
private:
    T *h_ = nullptr;
};

class Device : public Handle<lamina_device> {
public:
    Device() : Handle(make()) {}
    std::string backend() const { return lamina_device_backend(get()); }
private:
    static lamina_device *make() { lamina_device *d = nullptr; check(lamina_device_create(nullptr, nullptr, &d), "lamina_device_create"); return d; }
};

class Target : public Handle<lamina_target> {
public:
    Target(const Device &d, uint32_t w, uint32_t h, double scale = 1) : Handle(make(d, w, h, scale)), width_(w), height_(h) {}
    std::vector<uint8_t> pixels() const {
        std::vector<uint8_t> out(size_t(width_) * height_ * 4);
        check(lamina_target_read_pixels(get(), LAMINA_PIXEL_RGBA8, out.data(), size_t(width_) * 4, out.size()), "lamina_target_read_pixels");
        return out;
    }
    void writePNG(const std::string &path) const { check(lamina_target_write_png(get(), path.c_str()), "lamina_target_write_png"); }
    uint32_t width() const { return width_; }
private:
    static lamina_target *make(const Device &d, uint32_t w, uint32_t h, double s) {
        lamina_target *t = nullptr; check(lamina_target_create_offscreen(d.get(), w, h, s, &t), "lamina_target_create_offscreen"); return t;
    }
    uint32_t width_, height_;
};

class Layer : public Handle<lamina_layer> {
public:
    using DrawFunction = std::function<void(cairo_t *, lamina_rect)>;
    Layer() : Handle(make()) {}
    Layer &frame(double x, double y, double w, double h) { check(lamina_layer_set_frame(get(), {x, y, w, h}), "set_frame"); return *this; }
    Layer &background(double r, double g, double b, double a = 1) {
        lamina_color c{r, g, b, a};
        check(lamina_layer_set_background_color(get(), &c), "set_background_color");
        return *this;
    }
    Layer &cornerRadius(double r) { check(lamina_layer_set_corner_radius(get(), r), "set_corner_radius"); return *this; }
    // LAMINA_CORNER_* bits: the corners cornerRadius rounds.
    Layer &maskedCorners(unsigned corners) { check(lamina_layer_set_masked_corners(get(), corners), "set_masked_corners"); return *this; }
    Layer &opacity(double o) { check(lamina_layer_set_opacity(get(), o), "set_opacity"); return *this; }
    Layer &add(const Layer &sub) { check(lamina_layer_add_sublayer(get(), sub.get()), "add_sublayer"); return *this; }
    // A C++ callable as the draw callback (freed by the library's destroy callback).
    Layer &draw(DrawFunction f) {
        auto boxed = std::make_unique<DrawFunction>(std::move(f));
        check(lamina_layer_set_draw_callback(get(), &Layer::trampoline, boxed.get(), &Layer::destroy), "set_draw_callback");
        boxed.release();   // the library owns it now: Layer::destroy frees it
        check(lamina_layer_set_needs_display(get()), "set_needs_display");
        return *this;
    }
protected:
    explicit Layer(lamina_layer *made) : Handle(made) {}
    friend class View;   // (a view's layer)
private:
    static lamina_layer *make() { lamina_layer *l = nullptr; check(lamina_layer_create(&l), "lamina_layer_create"); return l; }
    // No exception may unwind through the library: a throwing draw is reported and dropped.
    static void trampoline(lamina_layer *, cairo_t *cr, lamina_rect dirty, void *user) noexcept {
        try {
            (*static_cast<DrawFunction *>(user))(cr, dirty);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "draw callback threw: %s\n", e.what());
        }
    }
    static void destroy(void *user) { delete static_cast<DrawFunction *>(user); }
};

// A gradient layer (CAGradientLayer): colours spread evenly from `start` to `end` (unit points).
class GradientLayer : public Layer {
public:
    GradientLayer() : Layer(make()) {}
    GradientLayer &colors(const std::vector<lamina_color> &c) {
        check(lamina_gradient_layer_set_colors(get(), c.data(), nullptr, c.size()), "gradient_set_colors");
        return *this;
    }
    GradientLayer &points(lamina_point start, lamina_point end) {
        check(lamina_gradient_layer_set_points(get(), start, end), "gradient_set_points");
        return *this;
    }
private:
    static lamina_layer *make() { lamina_layer *l = nullptr; check(lamina_gradient_layer_create(&l), "lamina_gradient_layer_create"); return l; }
};

// A view (UIView): a rectangle backed by a layer, with an event handler — a C++ callable
// returning true when it handled the event (false passes it to the superview).
class View : public Handle<lamina_view> {
public:
    using EventFunction = std::function<bool(const lamina_event &)>;
    View(double x, double y, double w, double h) : Handle(make(x, y, w, h)) {}
    View &add(const View &sub) { check(lamina_view_add_subview(get(), sub.get()), "add_subview"); return *this; }
    Layer layer() const { lamina_layer *l = nullptr; check(lamina_view_get_layer(get(), &l), "get_layer"); return Layer(l); }
    View &onEvent(EventFunction f) {
        auto boxed = std::make_unique<EventFunction>(std::move(f));
        check(lamina_view_set_event_handler(get(), &View::trampoline, boxed.get(), &View::destroy), "set_event_handler");
        boxed.release();   // the library owns it now: View::destroy frees it
        return *this;
    }
protected:
    explicit View(lamina_view *made) : Handle(made) {}
private:
    static lamina_view *make(double x, double y, double w, double h) {
        lamina_view *v = nullptr; check(lamina_view_create({x, y, w, h}, &v), "lamina_view_create"); return v;
    }
    static int trampoline(lamina_view *, const lamina_event *e, void *user) noexcept {
        try {
            return (*static_cast<EventFunction *>(user))(*e) ? 1 : 0;
        } catch (const std::exception &x) {
            std::fprintf(stderr, "event handler threw: %s\n", x.what());
            return 0;
        }
    }
    static void destroy(void *user) { delete static_cast<EventFunction *>(user); }
};

// A window (UIWindow) on a target: the root view, compositing at each commit; the host's
// input goes in through it.
class Window : public View {
public:
    Window(const Target &t, lamina_color background) : View(make(t, background)) {}
    void touch(int id, lamina_event_type phase, double x, double y, double time = 0) {
        check(lamina_window_send_touch(get(), id, phase, {x, y}, time), "send_touch");
    }
private:
    static lamina_view *make(const Target &t, lamina_color bg) {
        lamina_view *w = nullptr; check(lamina_window_create(t.get(), &bg, &w), "lamina_window_create"); return w;
    }
};

class Host : public Handle<lamina_host> {
public:
    Host(const Layer &root, const Target &target, lamina_color background) : Handle(make(root, target, background)) {}
    static void flush() { check(lamina_flush(), "lamina_flush"); }
private:
    static lamina_host *make(const Layer &r, const Target &t, lamina_color bg) {
        lamina_host *h = nullptr; check(lamina_host_create(r.get(), t.get(), &bg, &h), "lamina_host_create"); return h;
    }
};

} // namespace lam

static int failures = 0;
static void expect(const std::vector<uint8_t> &px, uint32_t width, int x, int y, int r, int g, int b) {
    const uint8_t *p = &px[(size_t(y) * width + x) * 4];
    if (std::abs(p[0] - r) + std::abs(p[1] - g) + std::abs(p[2] - b) > 6) {
        std::fprintf(stderr, "pixel (%d,%d) is (%d,%d,%d), expected (%d,%d,%d)\n", x, y, p[0], p[1], p[2], r, g, b);
        failures++;
    }
}

int main(int argc, char **argv) {
    try {
        int draws = 0;
        {
            lam::Device device;
            lam::Target target(device, 120, 80);
            lam::Layer root, card, stripes;
            root.frame(0, 0, 120, 80);
            card.frame(10, 10, 50, 50).background(0, 0.5, 0).cornerRadius(6).maskedCorners(LAMINA_CORNER_MIN_X_MIN_Y);
            lam::GradientLayer fade;
            fade.colors({{1, 0, 0, 1}, {0, 0, 1, 1}}).points({0, 0.5}, {1, 0.5});
            fade.frame(10, 64, 50, 8);
            stripes.frame(65, 10, 50, 60).draw([&](cairo_t *cr, lamina_rect) {
                draws++;
                for (int i = 0; i < 5; i++) {
                    cairo_set_source_rgb(cr, i % 2 ? 1.0 : 0.0, 0, i % 2 ? 0.0 : 1.0);
                    cairo_rectangle(cr, 0, i * 12, 50, 12);
                    cairo_fill(cr);
                }
            });
            root.add(card).add(stripes).add(fade);
            lam::Host host(root, target, {1, 1, 1, 1});
            lam::Host::flush();
            auto px = target.pixels();
            expect(px, target.width(), 35, 35, 0, 128, 0);    // the card
            expect(px, target.width(), 90, 15, 0, 0, 255);    // stripe 0: blue
            expect(px, target.width(), 90, 27, 255, 0, 0);    // stripe 1: red
            expect(px, target.width(), 5, 75, 255, 255, 255); // the background
            expect(px, target.width(), 59, 59, 0, 128, 0);    // the card's square corner (only the top left is rounded)
            expect(px, target.width(), 10, 68, 252, 0, 3);    // the gradient: red at its left, 1% of the way
            expect(px, target.width(), 35, 68, 125, 0, 130);  // … half-way at its middle (51%)
            target.writePNG(argc > 1 ? argv[1] : "cpp-example.png");
            // A copy of a handle is a reference: both go at the end of the scope.
            // Changes to a layer of a rendered tree animate implicitly (0.25 s, as Core
            // Animation's do) unless actions are disabled, here for this transaction.
            lam::Layer alias = card;
            lam::check(lamina_transaction_set_disable_actions(1), "set_disable_actions");
            alias.opacity(0.5);
            lam::Host::flush();
            expect(target.pixels(), target.width(), 35, 35, 128, 191, 128);
        }
        // A window with a button view: a click (down and up inside) turns it green.
        {
            lam::Device device;
            lam::Target target(device, 100, 60);
            lam::Window window(target, {1, 1, 1, 1});
            lam::View button(20, 10, 60, 40);
            lam::Layer face = button.layer();
            face.background(0, 0, 1).cornerRadius(8);
            int phases = 0;
            button.onEvent([&](const lamina_event &e) {
                if (e.type > LAMINA_EVENT_TOUCH_CANCELLED) return false;   // not a touch: passed on
                phases++;
                if (e.type == LAMINA_EVENT_TOUCH_ENDED && e.location.x >= 0 && e.location.x < 60 && e.location.y >= 0 && e.location.y < 40)
                    face.background(0, 1, 0);
                return true;
            });
            window.add(button);
            lam::check(lamina_transaction_set_disable_actions(1), "set_disable_actions");
            lam::Host::flush();
            expect(target.pixels(), target.width(), 50, 30, 0, 0, 255);   // blue before
            window.touch(0, LAMINA_EVENT_TOUCH_BEGAN, 50, 30);             // window points; the button's (30, 20)
            window.touch(0, LAMINA_EVENT_TOUCH_ENDED, 50, 30);
            lam::check(lamina_transaction_set_disable_actions(1), "set_disable_actions");
            lam::Host::flush();
            expect(target.pixels(), target.width(), 50, 30, 0, 255, 0);   // green after the click
            expect(target.pixels(), target.width(), 5, 5, 255, 255, 255);  // the window's background
            if (phases != 2) { std::fprintf(stderr, "the button got %d touch phases, expected 2\n", phases); failures++; }
        }
        if (draws != 1) { std::fprintf(stderr, "drawn %d times, expected once\n", draws); failures++; }
        if (lamina_live_handles() != 0) { std::fprintf(stderr, "%zu handles alive after the scope\n", lamina_live_handles()); failures++; }
        // Errors are exceptions carrying the library's message.
        try {
            lam::Device d;
            lam::Target t(d, 0, 0);
            failures++;
        } catch (const lam::Error &e) {
            if (e.status != LAMINA_ERROR_INVALID_ARGUMENT) failures++;
            std::printf("expected error: %s\n", e.what());
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    if (failures) { std::fprintf(stderr, "%d checks failed\n", failures); return 1; }
    std::printf("C++ example: all pixel checks passed, no handle left\n");
    return 0;
}
