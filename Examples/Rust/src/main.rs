//! Lamina from Rust through its C API: a layer tree with a Cairo draw callback (Cairo
//! called through its own C functions), rendered offscreen, pixels checked; then a window
//! whose button view takes a click through a Rust event handler.
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

#[repr(C)] #[derive(Clone, Copy)] struct Rect { x: f64, y: f64, width: f64, height: f64 }
#[repr(C)] #[derive(Clone, Copy)] struct Color { red: f64, green: f64, blue: f64, alpha: f64 }
#[repr(C)] #[derive(Clone, Copy)] struct Point { x: f64, y: f64 }
#[repr(C)] struct Opaque { _private: [u8; 0] }
type Status = c_int;
const OK: Status = 0;
const ERROR_RELEASED: Status = 3;
const PIXEL_RGBA8: c_int = 0;

type DrawFn = extern "C" fn(layer: *mut Opaque, cr: *mut Opaque, dirty: Rect, user: *mut c_void);
/// `lamina_event` (lamina.h): what a view's event handler gets.
#[repr(C)] struct Event {
    kind: c_int, timestamp: f64, location: Point, touch_id: c_int, key_code: c_int, repeat_count: c_int,
    modifiers: u32, text: *const c_char, scroll_dx: f64, scroll_dy: f64,
}
type EventFn = extern "C" fn(view: *mut Opaque, event: *const Event, user: *mut c_void) -> c_int;
const EVENT_TOUCH_BEGAN: c_int = 0;
const EVENT_TOUCH_ENDED: c_int = 2;
const EVENT_TOUCH_CANCELLED: c_int = 3;

extern "C" {
    fn lamina_api_version() -> u32;
    fn lamina_version() -> *const c_char;
    fn lamina_last_error() -> *const c_char;
    fn lamina_live_handles() -> usize;
    fn lamina_release(handle: *mut Opaque) -> Status;
    fn lamina_device_create(backend: *const c_char, drm: *const c_char, out: *mut *mut Opaque) -> Status;
    fn lamina_device_close(device: *mut Opaque) -> Status;
    fn lamina_target_create_offscreen(device: *mut Opaque, w: u32, h: u32, scale: f64, out: *mut *mut Opaque) -> Status;
    fn lamina_target_read_pixels(target: *mut Opaque, format: c_int, pixels: *mut u8, row_bytes: usize, capacity: usize) -> Status;
    fn lamina_layer_create(out: *mut *mut Opaque) -> Status;
    fn lamina_layer_set_frame(layer: *mut Opaque, frame: Rect) -> Status;
    fn lamina_layer_set_background_color(layer: *mut Opaque, color: *const Color) -> Status;
    fn lamina_layer_set_transform(layer: *mut Opaque, m: *const [f64; 16]) -> Status;
    fn lamina_layer_add_sublayer(layer: *mut Opaque, sub: *mut Opaque) -> Status;
    fn lamina_layer_set_draw_callback(layer: *mut Opaque, draw: DrawFn, user: *mut c_void, destroy: Option<extern "C" fn(*mut c_void)>) -> Status;
    fn lamina_layer_set_needs_display(layer: *mut Opaque) -> Status;
    fn lamina_gradient_layer_create(out: *mut *mut Opaque) -> Status;
    fn lamina_gradient_layer_set_colors(layer: *mut Opaque, colors: *const Color, locations: *const f64, count: usize) -> Status;
    fn lamina_gradient_layer_set_points(layer: *mut Opaque, start: Point, end: Point) -> Status;
    fn lamina_host_create(root: *mut Opaque, target: *mut Opaque, background: *const Color, out: *mut *mut Opaque) -> Status;
    fn lamina_flush() -> Status;
    fn lamina_transaction_set_disable_actions(disable: c_int) -> Status;
    fn lamina_window_create(target: *mut Opaque, background: *const Color, out: *mut *mut Opaque) -> Status;
    fn lamina_window_send_touch(window: *mut Opaque, touch_id: c_int, phase: c_int, location: Point, time: f64) -> Status;
    fn lamina_view_create(frame: Rect, out: *mut *mut Opaque) -> Status;
    fn lamina_view_add_subview(view: *mut Opaque, sub: *mut Opaque) -> Status;
    fn lamina_view_get_layer(view: *mut Opaque, out: *mut *mut Opaque) -> Status;
    fn lamina_view_set_event_handler(view: *mut Opaque, handler: EventFn, user: *mut c_void, destroy: Option<extern "C" fn(*mut c_void)>) -> Status;
    // Cairo, for the draw callback.
    fn cairo_set_source_rgb(cr: *mut Opaque, r: f64, g: f64, b: f64);
    fn cairo_rectangle(cr: *mut Opaque, x: f64, y: f64, w: f64, h: f64);
    fn cairo_fill(cr: *mut Opaque);
}

fn check(status: Status, what: &str) {
    if status != OK {
        let e = unsafe { lamina_last_error() };
        let message = if e.is_null() { "(no message)".into() } else { unsafe { CStr::from_ptr(e) }.to_string_lossy() };
        panic!("{what} failed ({status}): {message}");
    }
}

extern "C" fn draw_checker(_layer: *mut Opaque, cr: *mut Opaque, _dirty: Rect, user: *mut c_void) {
    let draws = unsafe { &mut *(user as *mut u32) };
    *draws += 1;
    unsafe {
        for i in 0..4 {
            for j in 0..4 {
                if (i + j) % 2 == 0 { cairo_set_source_rgb(cr, 0.0, 0.0, 0.0) } else { cairo_set_source_rgb(cr, 1.0, 1.0, 0.0) }
                cairo_rectangle(cr, i as f64 * 10.0, j as f64 * 10.0, 10.0, 10.0);
                cairo_fill(cr);
            }
        }
    }
}

/// The button's state, handed to its event handler.
struct Button { layer: *mut Opaque, touches: u32 }

/// Touches are handled (a release inside turns the button green); anything else is passed on.
extern "C" fn button_event(_view: *mut Opaque, event: *const Event, user: *mut c_void) -> c_int {
    let (e, button) = unsafe { (&*event, &mut *(user as *mut Button)) };
    if e.kind < EVENT_TOUCH_BEGAN || e.kind > EVENT_TOUCH_CANCELLED { return 0; }
    button.touches += 1;
    let inside = e.location.x >= 0.0 && e.location.x < 40.0 && e.location.y >= 0.0 && e.location.y < 20.0;
    if e.kind == EVENT_TOUCH_ENDED && inside {
        unsafe { lamina_layer_set_background_color(button.layer, &Color { red: 0.0, green: 1.0, blue: 0.0, alpha: 1.0 }) };
    }
    1
}

fn main() {
    unsafe {
        assert_eq!(lamina_api_version(), 1, "the API version this example was written for");
        println!("Lamina {} (API {})", CStr::from_ptr(lamina_version()).to_string_lossy(), lamina_api_version());
        let (mut device, mut target, mut root, mut square, mut checker, mut host) =
            (ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        check(lamina_device_create(ptr::null(), ptr::null(), &mut device), "lamina_device_create");
        check(lamina_target_create_offscreen(device, 100, 60, 1.0, &mut target), "lamina_target_create_offscreen");
        check(lamina_layer_create(&mut root), "lamina_layer_create");
        check(lamina_layer_set_frame(root, Rect { x: 0.0, y: 0.0, width: 100.0, height: 60.0 }), "set_frame");
        check(lamina_layer_create(&mut square), "lamina_layer_create");
        check(lamina_layer_set_frame(square, Rect { x: 10.0, y: 10.0, width: 30.0, height: 30.0 }), "set_frame");
        check(lamina_layer_set_background_color(square, &Color { red: 1.0, green: 0.0, blue: 1.0, alpha: 1.0 }), "set_background_color");
        // A 90° turn about its centre (a square looks the same: the transform path is exercised).
        let turn = [0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        check(lamina_layer_set_transform(square, &turn), "set_transform");
        check(lamina_layer_add_sublayer(root, square), "add_sublayer");
        let mut draws: u32 = 0;
        check(lamina_layer_create(&mut checker), "lamina_layer_create");
        check(lamina_layer_set_frame(checker, Rect { x: 55.0, y: 10.0, width: 40.0, height: 40.0 }), "set_frame");
        check(lamina_layer_set_draw_callback(checker, draw_checker, &mut draws as *mut u32 as *mut c_void, None), "set_draw_callback");
        check(lamina_layer_set_needs_display(checker), "set_needs_display");
        check(lamina_layer_add_sublayer(root, checker), "add_sublayer");
        // A gradient layer (CAGradientLayer): green at the top to blue at the bottom.
        let mut gradient = ptr::null_mut();
        check(lamina_gradient_layer_create(&mut gradient), "lamina_gradient_layer_create");
        check(lamina_layer_set_frame(gradient, Rect { x: 10.0, y: 44.0, width: 30.0, height: 14.0 }), "set_frame");
        let stops = [Color { red: 0.0, green: 1.0, blue: 0.0, alpha: 1.0 }, Color { red: 0.0, green: 0.0, blue: 1.0, alpha: 1.0 }];
        check(lamina_gradient_layer_set_colors(gradient, stops.as_ptr(), ptr::null(), stops.len()), "gradient_set_colors");
        check(lamina_gradient_layer_set_points(gradient, Point { x: 0.5, y: 0.0 }, Point { x: 0.5, y: 1.0 }), "gradient_set_points");
        check(lamina_layer_add_sublayer(root, gradient), "add_sublayer");
        let white = Color { red: 1.0, green: 1.0, blue: 1.0, alpha: 1.0 };
        check(lamina_host_create(root, target, &white, &mut host), "lamina_host_create");
        check(lamina_flush(), "lamina_flush");

        let mut px = vec![0u8; 100 * 60 * 4];
        check(lamina_target_read_pixels(target, PIXEL_RGBA8, px.as_mut_ptr(), 400, px.len()), "read_pixels");
        let at = |x: usize, y: usize| -> [u8; 4] { let i = (y * 100 + x) * 4; [px[i], px[i + 1], px[i + 2], px[i + 3]] };
        let mut failures = 0;
        for (x, y, want, what) in [(25, 25, [255, 0, 255, 255], "the square"), (60, 15, [0, 0, 0, 255], "a black cell"),
                                   (70, 15, [255, 255, 0, 255], "a yellow cell"), (5, 55, [255, 255, 255, 255], "the background"),
                                   (25, 44, [0, 246, 9, 255], "the gradient's top row (green, 1/28 of the way)"),
                                   (25, 51, [0, 118, 137, 255], "the gradient's middle row (15/28 of the way)")] {
            let got = at(x, y);
            let diff: i32 = got.iter().zip(want.iter()).map(|(a, b)| (*a as i32 - *b as i32).abs()).sum();
            if diff > 6 { eprintln!("{what}: pixel ({x},{y}) is {got:?}, expected {want:?}"); failures += 1; }
        }
        if draws != 1 { eprintln!("drawn {draws} times, expected once"); failures += 1; }

        // A window on a target of its own with a button view: a click (down and up inside)
        // reaches the button's handler through hit testing and turns it green.
        let (mut panel, mut window, mut view) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        check(lamina_target_create_offscreen(device, 60, 40, 1.0, &mut panel), "lamina_target_create_offscreen");
        check(lamina_window_create(panel, &white, &mut window), "lamina_window_create");
        check(lamina_view_create(Rect { x: 10.0, y: 10.0, width: 40.0, height: 20.0 }, &mut view), "lamina_view_create");
        let mut button = Button { layer: ptr::null_mut(), touches: 0 };
        check(lamina_view_get_layer(view, &mut button.layer), "lamina_view_get_layer");
        check(lamina_layer_set_background_color(button.layer, &Color { red: 0.0, green: 0.0, blue: 1.0, alpha: 1.0 }), "set_background_color");
        check(lamina_view_set_event_handler(view, button_event, &mut button as *mut Button as *mut c_void, None), "set_event_handler");
        check(lamina_view_add_subview(window, view), "add_subview");
        check(lamina_window_send_touch(window, 0, EVENT_TOUCH_BEGAN, Point { x: 30.0, y: 20.0 }, 0.0), "send_touch");
        check(lamina_window_send_touch(window, 0, EVENT_TOUCH_ENDED, Point { x: 30.0, y: 20.0 }, 0.1), "send_touch");
        check(lamina_transaction_set_disable_actions(1), "set_disable_actions");
        check(lamina_flush(), "lamina_flush");
        let mut pp = vec![0u8; 60 * 40 * 4];
        check(lamina_target_read_pixels(panel, PIXEL_RGBA8, pp.as_mut_ptr(), 240, pp.len()), "read_pixels");
        let (centre, corner) = (&pp[(20 * 60 + 30) * 4..][..3], &pp[(2 * 60 + 2) * 4..][..3]);
        if centre != [0, 255, 0] || corner != [255, 255, 255] || button.touches != 2 {
            eprintln!("the button: {centre:?} at its centre (expected green), {corner:?} beside it, {} touch phases (expected 2)", button.touches);
            failures += 1;
        }
        for h in [button.layer, view, window, panel] { check(lamina_release(h), "lamina_release"); }

        for h in [host, gradient, checker, square, root, target] { check(lamina_release(h), "lamina_release"); }
        // A handle released twice is an error, not a crash.
        assert_eq!(lamina_release(square), ERROR_RELEASED);
        check(lamina_device_close(device), "lamina_device_close");
        check(lamina_release(device), "lamina_release");
        if lamina_live_handles() != 0 { eprintln!("{} handles alive", lamina_live_handles()); failures += 1; }
        if failures > 0 { eprintln!("{failures} checks failed"); std::process::exit(1); }
        println!("Rust example: all pixel checks passed, no handle left");
    }
}
