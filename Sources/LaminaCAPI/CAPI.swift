import CLamina
import FoundationEssentials
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaScene

// The C API (include/lamina.h): each function checks its thread and arguments, runs on
// the main actor, and reports failures as a status and the thread's last error.

// MARK: Library

@_cdecl("lamina_api_version") public func c_api_version() -> UInt32 { UInt32(LAMINA_API_VERSION) }

nonisolated(unsafe) private let versionString = strdup(LaminaVersion.string)!
@_cdecl("lamina_version") public func c_version() -> UnsafePointer<CChar> { UnsafePointer(versionString) }

@_cdecl("lamina_last_error") public func c_last_error() -> UnsafePointer<CChar>? { lastErrorPointer() }

@_cdecl("lamina_live_handles") public func c_live_handles() -> Int {
    guard onMainThread() else { return 0 }
    return MainActor.assumeIsolated { Handles.entries.count }
}

@_cdecl("lamina_retain") public func c_retain(_ h: UnsafeMutableRawPointer?) -> lamina_status {
    nonisolated(unsafe) let h = h
    return call("lamina_retain") { try Handles.retain(h) }
}

@_cdecl("lamina_release") public func c_release(_ h: UnsafeMutableRawPointer?) -> lamina_status {
    nonisolated(unsafe) let h = h
    return call("lamina_release") { try Handles.release(h) }
}

// MARK: Devices

@_cdecl("lamina_device_create")
public func c_device_create(_ backend: UnsafePointer<CChar>?, _ drm: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let backend = backend, drm = drm, out = out
    return call("lamina_device_create") {
        let selection = try backend.map { try BackendSelection(parsing: String(cString: $0)) }
        try give(.device(try GPUDevice(backend: selection, drmDevice: drm.map { String(cString: $0) })), to: out)
    }
}

@_cdecl("lamina_device_create_adopting_current")
public func c_device_adopt(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_device_create_adopting_current") { try give(.device(try GPUDevice(adopting: .current)), to: out) }
}

@_cdecl("lamina_device_create_sharing_current")
public func c_device_share(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_device_create_sharing_current") { try give(.device(try GPUDevice(sharingWith: .current)), to: out) }
}

nonisolated(unsafe) private let backendNames: [String: UnsafeMutablePointer<CChar>] = {
    var d: [String: UnsafeMutablePointer<CChar>] = [:]
    for n in ["gbm", "device", "surfaceless", "adopted", "shared", "unknown"] { d[n] = strdup(n) }
    return d
}()

@_cdecl("lamina_device_backend")
public func c_device_backend(_ d: OpaquePointer?) -> UnsafePointer<CChar>? {
    nonisolated(unsafe) let d = d
    nonisolated(unsafe) var name = "unknown"
    _ = call("lamina_device_backend") {
        let device = try Handles.device(d)
        switch device.ownership {
        case .adopt: name = "adopted"
        case .share: name = "shared"
        default: name = device.backend.rawValue
        }
    }
    return UnsafePointer(backendNames[name] ?? backendNames["unknown"]!)
}

@_cdecl("lamina_device_close")
public func c_device_close(_ d: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let d = d
    return call("lamina_device_close") { try Handles.device(d).close() }
}

// MARK: Targets

private func pixelSize(_ w: UInt32, _ h: UInt32) throws -> PixelSize {
    guard w > 0, h > 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a target needs a width and height of at least 1 pixel (got \(w)×\(h))") }
    return PixelSize(width: Int(w), height: Int(h))
}

private func checkedScale(_ s: Double) throws -> Double {
    guard PixelScale.isValid(s) else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, PixelScale.requirement(got: s)) }
    return s
}

@_cdecl("lamina_target_create_offscreen")
public func c_target_offscreen(_ d: OpaquePointer?, _ w: UInt32, _ h: UInt32, _ scale: Double, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let d = d, out = out
    return call("lamina_target_create_offscreen") {
        try give(.target(try OffscreenTarget(device: try Handles.device(d), pixelSize: try pixelSize(w, h), scale: try checkedScale(scale))), to: out)
    }
}

@_cdecl("lamina_target_create_gbm")
public func c_target_gbm(_ d: OpaquePointer?, _ w: UInt32, _ h: UInt32, _ scale: Double, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let d = d, out = out
    return call("lamina_target_create_gbm") {
        try give(.target(try GBMTarget(device: try Handles.device(d), pixelSize: try pixelSize(w, h), scale: try checkedScale(scale))), to: out)
    }
}

@_cdecl("lamina_target_create_framebuffer")
public func c_target_framebuffer(_ d: OpaquePointer?, _ fbo: UInt32, _ w: UInt32, _ h: UInt32, _ scale: Double,
                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let d = d, out = out
    return call("lamina_target_create_framebuffer") {
        try give(.target(try ExternalFramebufferTarget(device: try Handles.device(d), framebuffer: fbo, pixelSize: try pixelSize(w, h),
                                                       scale: try checkedScale(scale))), to: out)
    }
}

@_cdecl("lamina_target_create_framebuffer_region")
public func c_target_framebuffer_region(_ d: OpaquePointer?, _ fbo: UInt32, _ w: UInt32, _ h: UInt32, _ region: lamina_pixel_rect,
                                        _ bottomRowFirst: Int32, _ scale: Double, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let d = d, out = out
    return call("lamina_target_create_framebuffer_region") {
        let r = PixelRect(x: Int(region.x), y: Int(region.y), width: Int(region.width), height: Int(region.height))
        guard r.width >= 1, r.height >= 1, r.x + r.width <= Int(w), r.y + r.height <= Int(h) else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the region \(r) must have pixels and lie inside the \(w)×\(h) framebuffer")
        }
        try give(.target(try ExternalFramebufferTarget(device: try Handles.device(d), framebuffer: fbo, pixelSize: try pixelSize(w, h), region: r,
                                                       scale: try checkedScale(scale), bottomRowFirst: bottomRowFirst != 0)), to: out)
    }
}

@_cdecl("lamina_target_pixel_size")
public func c_target_pixel_size(_ t: OpaquePointer?, _ w: UnsafeMutablePointer<UInt32>?, _ h: UnsafeMutablePointer<UInt32>?) -> lamina_status {
    nonisolated(unsafe) let t = t, w = w, h = h
    return call("lamina_target_pixel_size") {
        let s = try Handles.target(t).pixelSize
        try required(w).pointee = UInt32(s.width); try required(h).pointee = UInt32(s.height)
    }
}

@_cdecl("lamina_target_read_pixels")
public func c_target_read(_ t: OpaquePointer?, _ format: lamina_pixel_format, _ pixels: UnsafeMutablePointer<UInt8>?,
                          _ rowBytes: Int, _ capacity: Int) -> lamina_status {
    nonisolated(unsafe) let t = t, pixels = pixels
    return call("lamina_target_read_pixels") {
        let target = try Handles.target(t)
        guard let pixels else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the pixel buffer is NULL") }
        let s = target.pixelSize
        guard rowBytes >= s.width * 4 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "row_bytes \(rowBytes) is less than width × 4 = \(s.width * 4)")
        }
        let (needed, overflow) = rowBytes.multipliedReportingOverflow(by: s.height)
        guard !overflow, capacity >= needed else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the buffer holds \(capacity) bytes; \(s.width)×\(s.height) pixels at \(rowBytes) bytes a row need \(needed)")
        }
        let image = try target.readPixels()
        guard format == LAMINA_PIXEL_RGBA8 || format == LAMINA_PIXEL_BGRA8 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(format.rawValue) is not a lamina_pixel_format")
        }
        let swap = format == LAMINA_PIXEL_BGRA8
        image.bytes.withUnsafeBufferPointer { src in
            for y in 0..<s.height {
                let row = pixels + y * rowBytes, from = y * s.width * 4
                for x in 0..<s.width {
                    let i = from + x * 4, o = x * 4
                    row[o] = src[i + (swap ? 2 : 0)]; row[o + 1] = src[i + 1]; row[o + 2] = src[i + (swap ? 0 : 2)]; row[o + 3] = src[i + 3]
                }
            }
        }
    }
}

@_cdecl("lamina_target_write_png")
public func c_target_png(_ t: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let t = t, path = path
    return call("lamina_target_write_png") { try Handles.target(t).readPixels().writePNG(to: try cString(path, "the path")) }
}

// MARK: Layers

/// A layer made through the C API: its content is drawn by a C callback.
final class CAPILayer: Layer {
    var draw: lamina_draw_fn?
    var userData: UnsafeMutableRawPointer?
    var destroy: lamina_destroy_fn?

    /// Replaces the callback; the old one's destroy runs when the API call returns (not
    /// when the same user data and destroy are set again).
    func setCallback(_ d: lamina_draw_fn?, _ user: UnsafeMutableRawPointer?, _ x: lamina_destroy_fn?) {
        let (oldDestroy, oldUser) = (destroy, userData)
        (draw, userData, destroy) = (d, user, x)
        if let oldDestroy, !(oldUser == user && x.map { unsafeBitCast($0, to: UInt.self) } == unsafeBitCast(oldDestroy, to: UInt.self)) {
            pendingCallbacks.append { oldDestroy(oldUser) }
        }
    }

    override func draw(in context: GraphicsContext) {
        guard let draw, let cr = context.cairoContext else { return }
        let r = context.clipRect ?? bounds
        // The layer's own handle for the callback (a reference held only for the call).
        let h = Handles.handle(for: .layer(self))
        drawDepth += 1
        defer { drawDepth -= 1; try? Handles.release(UnsafeRawPointer(h)) }
        draw(h, cr, lamina_rect(x: r.origin.x, y: r.origin.y, width: r.size.width, height: r.size.height), userData)
    }

    // The destroy callback runs once the API call that dropped the layer returns: never
    // inside the layer's deinit, where the layer is half gone.
    isolated deinit {
        draw = nil
        if let destroy { let user = userData; pendingCallbacks.append { destroy(user) } }
    }
}

@_cdecl("lamina_layer_create")
public func c_layer_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_layer_create") { try give(.layer(CAPILayer()), to: out) }
}

@_cdecl("lamina_layer_add_sublayer")
public func c_layer_add(_ l: OpaquePointer?, _ s: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l, s = s
    return call("lamina_layer_add_sublayer") { try addSublayer(try Handles.layer(l), try Handles.layer(s), at: nil) }
}

@_cdecl("lamina_layer_insert_sublayer")
public func c_layer_insert(_ l: OpaquePointer?, _ s: OpaquePointer?, _ index: Int) -> lamina_status {
    nonisolated(unsafe) let l = l, s = s
    return call("lamina_layer_insert_sublayer") { try addSublayer(try Handles.layer(l), try Handles.layer(s), at: index) }
}

@MainActor private func addSublayer(_ parent: Layer, _ child: Layer, at index: Int?) throws {
    guard parent !== child else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a layer cannot be its own sublayer") }
    var p: Layer? = parent
    while let a = p { if a === child { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the sublayer is an ancestor of the layer (a cycle)") }; p = a.superlayer }
    if let index {
        guard index >= 0, index <= parent.sublayers.count else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "index \(index) is past the end of the \(parent.sublayers.count) sublayers")
        }
        parent.insertSublayer(child, at: index)
    } else {
        parent.addSublayer(child)
    }
}

@_cdecl("lamina_layer_remove_from_superlayer")
public func c_layer_remove(_ l: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l
    return call("lamina_layer_remove_from_superlayer") { try Handles.layer(l).removeFromSuperlayer() }
}

@_cdecl("lamina_layer_sublayer_count")
public func c_layer_count(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return call("lamina_layer_sublayer_count") {
        let n = try Handles.layer(l).sublayers.count
        guard let out else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the out-pointer is NULL") }
        out.pointee = n
    }
}

@_cdecl("lamina_layer_sublayer_at")
public func c_layer_at(_ l: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return call("lamina_layer_sublayer_at") {
        let subs = try Handles.layer(l).sublayers
        guard index >= 0, index < subs.count else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "index \(index) is past the end of the \(subs.count) sublayers") }
        try give(.layer(subs[index]), to: out)
    }
}

@_cdecl("lamina_layer_hit_test")
public func c_layer_hit_test(_ l: OpaquePointer?, _ point: lamina_point, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return call("lamina_layer_hit_test") {
        let layer = try Handles.layer(l)
        let o = try required(out)
        guard point.x.isFinite, point.y.isFinite else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the point must be finite (got \(point.x), \(point.y))")
        }
        guard let hit = layer.hitTest(Point(x: point.x, y: point.y)) else { o.pointee = nil; return }
        try give(.layer(hit), to: o)
    }
}

@_cdecl("lamina_layer_set_name")
public func c_layer_name(_ l: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let l = l, name = name
    return call("lamina_layer_set_name") { try Handles.layer(l).name = name.map { String(cString: $0) } }
}

/// Sets one property of a layer (the layer's own checks report refused values).
func set(_ name: String, _ l: OpaquePointer?, _ body: @MainActor (Layer) throws -> Void) -> lamina_status {
    nonisolated(unsafe) let l = l
    return call(name) { try body(try Handles.layer(l)) }
}

func rect(_ r: lamina_rect) throws -> Rect {
    try finite(r.x, r.y, r.width, r.height, what: "a rectangle's x, y, width and height")
    return Rect(x: r.x, y: r.y, width: r.width, height: r.height)
}
private func crect(_ r: Rect) -> lamina_rect { lamina_rect(x: r.origin.x, y: r.origin.y, width: r.size.width, height: r.size.height) }
func color(_ c: lamina_color) throws -> Color {
    try finite(c.red, c.green, c.blue, c.alpha, what: "a colour's components")
    return Color(red: c.red, green: c.green, blue: c.blue, alpha: c.alpha)
}
func transform(_ t: UnsafePointer<lamina_transform>?) throws -> Transform3D {
    guard let t else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the transform is NULL") }
    let m = withUnsafeBytes(of: t.pointee.m) { Array($0.bindMemory(to: Double.self)) }
    guard m.allSatisfy(\.isFinite) else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a transform's elements must be finite numbers") }
    return Transform3D(m)
}

@_cdecl("lamina_layer_set_frame") public func c_set_frame(_ l: OpaquePointer?, _ r: lamina_rect) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_frame", l) { $0.frame = try rect(r) }
}
@_cdecl("lamina_layer_get_frame") public func c_get_frame(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<lamina_rect>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_frame", l) { try required(out).pointee = crect($0.frame) }
}
@_cdecl("lamina_layer_set_bounds") public func c_set_bounds(_ l: OpaquePointer?, _ r: lamina_rect) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_bounds", l) { $0.bounds = try rect(r) }
}
@_cdecl("lamina_layer_get_bounds") public func c_get_bounds(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<lamina_rect>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_bounds", l) { try required(out).pointee = crect($0.bounds) }
}
@_cdecl("lamina_layer_set_position") public func c_set_position(_ l: OpaquePointer?, _ p: lamina_point) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_position", l) { try finite(p.x, p.y, what: "a position"); $0.position = Point(x: p.x, y: p.y) }
}
@_cdecl("lamina_layer_get_position") public func c_get_position(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<lamina_point>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_position", l) { try required(out).pointee = lamina_point(x: $0.position.x, y: $0.position.y) }
}
@_cdecl("lamina_layer_set_anchor_point") public func c_set_anchor(_ l: OpaquePointer?, _ p: lamina_point) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_anchor_point", l) { try finite(p.x, p.y, what: "an anchor point"); $0.anchorPoint = Point(x: p.x, y: p.y) }
}
@_cdecl("lamina_layer_set_anchor_point_z") public func c_set_anchor_z(_ l: OpaquePointer?, _ z: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_anchor_point_z", l) { try finite(z, what: "anchorPointZ"); $0.anchorPointZ = z }
}
@_cdecl("lamina_layer_set_z_position") public func c_set_z(_ l: OpaquePointer?, _ z: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_z_position", l) { try finite(z, what: "zPosition"); $0.zPosition = z }
}
@_cdecl("lamina_layer_set_transform") public func c_set_transform(_ l: OpaquePointer?, _ t: UnsafePointer<lamina_transform>?) -> lamina_status {
    nonisolated(unsafe) let l = l, t = t
    return set("lamina_layer_set_transform", l) { $0.transform = try transform(t) }
}
@_cdecl("lamina_layer_get_transform") public func c_get_transform(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<lamina_transform>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_transform", l) { layer in
        guard let out else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the out-pointer is NULL") }
        let v = layer.transform.values
        withUnsafeMutableBytes(of: &out.pointee.m) { b in for (i, x) in v.enumerated() { b.storeBytes(of: x, toByteOffset: i * 8, as: Double.self) } }
    }
}
@_cdecl("lamina_layer_set_sublayer_transform") public func c_set_sublayer_transform(_ l: OpaquePointer?, _ t: UnsafePointer<lamina_transform>?) -> lamina_status {
    nonisolated(unsafe) let l = l, t = t
    return set("lamina_layer_set_sublayer_transform", l) { $0.sublayerTransform = try transform(t) }
}
@_cdecl("lamina_layer_set_opacity") public func c_set_opacity(_ l: OpaquePointer?, _ v: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_opacity", l) { try finite(v, what: "opacity"); $0.opacity = v }
}
@_cdecl("lamina_layer_get_opacity") public func c_get_opacity(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_opacity", l) { try required(out).pointee = $0.opacity }
}
@_cdecl("lamina_layer_get_corner_radius") public func c_get_corner_radius(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_corner_radius", l) { try required(out).pointee = $0.cornerRadius }
}
@_cdecl("lamina_layer_get_border_width") public func c_get_border_width(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_border_width", l) { try required(out).pointee = $0.borderWidth }
}
@_cdecl("lamina_layer_get_shadow_opacity") public func c_get_shadow_opacity(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_shadow_opacity", l) { try required(out).pointee = $0.shadowOpacity }
}
@_cdecl("lamina_layer_get_background_color") public func c_get_background(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<lamina_color>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_background_color", l) {
        let c = $0.backgroundColor ?? Color(red: 0, green: 0, blue: 0, alpha: 0)
        try required(out).pointee = lamina_color(red: c.red, green: c.green, blue: c.blue, alpha: c.alpha)
    }
}
@_cdecl("lamina_layer_set_hidden") public func c_set_hidden(_ l: OpaquePointer?, _ v: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_hidden", l) { $0.isHidden = v != 0 }
}
@_cdecl("lamina_layer_set_double_sided") public func c_set_double_sided(_ l: OpaquePointer?, _ v: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_double_sided", l) { $0.isDoubleSided = v != 0 }
}
@_cdecl("lamina_layer_set_allows_group_opacity") public func c_set_group_opacity(_ l: OpaquePointer?, _ v: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_allows_group_opacity", l) { $0.allowsGroupOpacity = v != 0 }
}
@_cdecl("lamina_layer_set_background_color") public func c_set_background(_ l: OpaquePointer?, _ c: UnsafePointer<lamina_color>?) -> lamina_status {
    nonisolated(unsafe) let l = l, c = c
    return set("lamina_layer_set_background_color", l) { $0.backgroundColor = try c.map { try color($0.pointee) } }
}
@_cdecl("lamina_layer_set_border_width") public func c_set_border_width(_ l: OpaquePointer?, _ v: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_border_width", l) { try finite(v, what: "borderWidth"); $0.borderWidth = v }
}
@_cdecl("lamina_layer_set_border_color") public func c_set_border_color(_ l: OpaquePointer?, _ c: lamina_color) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_border_color", l) { $0.borderColor = try color(c) }
}
@_cdecl("lamina_layer_set_corner_radius") public func c_set_corner_radius(_ l: OpaquePointer?, _ v: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_corner_radius", l) { try finite(v, what: "cornerRadius"); $0.cornerRadius = v }
}
@_cdecl("lamina_layer_set_masks_to_bounds") public func c_set_masks(_ l: OpaquePointer?, _ v: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_masks_to_bounds", l) { $0.masksToBounds = v != 0 }
}
@_cdecl("lamina_layer_set_opaque") public func c_set_opaque(_ l: OpaquePointer?, _ v: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_opaque", l) { $0.isOpaque = v != 0 }
}
@_cdecl("lamina_layer_set_contents_rect") public func c_set_contents_rect(_ l: OpaquePointer?, _ r: lamina_rect) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_contents_rect", l) { $0.contentsRect = try rect(r) }
}
@_cdecl("lamina_layer_set_contents_center") public func c_set_contents_center(_ l: OpaquePointer?, _ r: lamina_rect) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_contents_center", l) { $0.contentsCenter = try rect(r) }
}
private let gravities: [ContentsGravity] = [.center, .top, .bottom, .left, .right, .topLeft, .topRight, .bottomLeft, .bottomRight,
                                            .resize, .resizeAspect, .resizeAspectFill]
@_cdecl("lamina_layer_set_contents_gravity") public func c_set_gravity(_ l: OpaquePointer?, _ g: lamina_contents_gravity) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_contents_gravity", l) {
        let i = Int(g.rawValue)
        guard i < gravities.count else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(i) is not a lamina_contents_gravity") }
        $0.contentsGravity = gravities[i]
    }
}
@_cdecl("lamina_layer_set_contents_scale") public func c_set_contents_scale(_ l: OpaquePointer?, _ v: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_contents_scale", l) { $0.contentsScale = try checkedScale(v) }
}
@_cdecl("lamina_layer_set_needs_display_on_bounds_change") public func c_set_redraw(_ l: OpaquePointer?, _ v: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_needs_display_on_bounds_change", l) { $0.needsDisplayOnBoundsChange = v != 0 }
}

@_cdecl("lamina_layer_set_filters")
public func c_set_filters(_ l: OpaquePointer?, _ minification: lamina_filter, _ magnification: lamina_filter) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_filters", l) { layer in
        func filter(_ f: lamina_filter) throws -> TextureFilter {
            switch f {
            case LAMINA_FILTER_LINEAR: return .linear
            case LAMINA_FILTER_NEAREST: return .nearest
            default: throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(f.rawValue) is not a lamina_filter")
            }
        }
        layer.minificationFilter = try filter(minification)
        layer.magnificationFilter = try filter(magnification)
    }
}
@_cdecl("lamina_layer_set_timing")
public func c_set_timing(_ l: OpaquePointer?, _ beginTime: Double, _ speed: Double, _ timeOffset: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_timing", l) { layer in
        try finite(beginTime, speed, timeOffset, what: "begin_time, speed and time_offset")
        layer.beginTime = beginTime; layer.speed = speed; layer.timeOffset = timeOffset
    }
}

// MARK: Contents

@_cdecl("lamina_layer_set_contents_pixels")
public func c_set_pixels(_ l: OpaquePointer?, _ pixels: UnsafePointer<UInt8>?, _ w: UInt32, _ h: UInt32, _ rowBytes: Int,
                         _ format: lamina_pixel_format) -> lamina_status {
    nonisolated(unsafe) let l = l, pixels = pixels
    return set("lamina_layer_set_contents_pixels", l) { layer in
        guard let pixels else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the pixels are NULL") }
        let size = try pixelSize(w, h)
        guard size.width <= 16384, size.height <= 16384 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(w)×\(h) pixels are beyond contents' limit of 16384 a side")
        }
        guard rowBytes >= size.width * 4 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "row_bytes \(rowBytes) is less than width × 4") }
        let (span, overflow) = rowBytes.multipliedReportingOverflow(by: size.height - 1)
        guard !overflow, !span.addingReportingOverflow(size.width * 4).overflow else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "row_bytes \(rowBytes) × \(size.height) rows is beyond any buffer")
        }
        guard format == LAMINA_PIXEL_RGBA8 || format == LAMINA_PIXEL_BGRA8 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(format.rawValue) is not a lamina_pixel_format")
        }
        let swap = format == LAMINA_PIXEL_BGRA8
        var bytes = [UInt8](repeating: 0, count: size.width * size.height * 4)
        for y in 0..<size.height {
            let row = pixels + y * rowBytes
            for x in 0..<size.width {
                let o = (y * size.width + x) * 4, i = x * 4
                bytes[o] = row[i + (swap ? 2 : 0)]; bytes[o + 1] = row[i + 1]; bytes[o + 2] = row[i + (swap ? 0 : 2)]; bytes[o + 3] = row[i + 3]
            }
        }
        layer.contents = .image(ContentImage(RGBAImage(width: size.width, height: size.height, bytes: bytes)))
    }
}

@_cdecl("lamina_layer_set_contents_png")
public func c_set_png(_ l: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let l = l, path = path
    return set("lamina_layer_set_contents_png", l) { $0.contents = .image(try ContentImage(contentsOfPNG: try cString(path, "the path"))) }
}

@_cdecl("lamina_layer_set_contents_texture")
public func c_set_texture(_ l: OpaquePointer?, _ d: OpaquePointer?, _ name: UInt32, _ w: UInt32, _ h: UInt32) -> lamina_status {
    nonisolated(unsafe) let l = l, d = d
    return set("lamina_layer_set_contents_texture", l) { layer in
        let device = try Handles.device(d)
        guard name != 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "texture 0 is not a texture") }
        layer.contents = .texture(try device.borrowTexture(glName: name, pixelSize: try pixelSize(w, h)))
    }
}

@_cdecl("lamina_layer_set_contents_dmabuf")
public func c_set_dmabuf(_ l: OpaquePointer?, _ d: OpaquePointer?, _ fd: Int32, _ w: UInt32, _ h: UInt32, _ fourcc: UInt32,
                         _ stride: UInt32, _ offset: UInt32, _ modifier: UInt64) -> lamina_status {
    nonisolated(unsafe) let l = l, d = d
    return set("lamina_layer_set_contents_dmabuf", l) { layer in
        let device = try Handles.device(d)
        guard fd >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(fd) is not a file descriptor") }
        let size = try pixelSize(w, h)
        // Lamina's own descriptor of the buffer (DMABuf closes its own): the caller keeps `fd`.
        let own = dup(fd)
        guard own >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(fd) is not an open file descriptor (dup: \(String(cString: strerror(errno))))") }
        let buf = DMABuf(fd: own, width: size.width, height: size.height, fourcc: fourcc, stride: Int(stride), offset: Int(offset), modifier: modifier)
        layer.contents = .texture(try device.importDMABuf(buf))
    }
}

@_cdecl("lamina_layer_clear_contents")
public func c_clear_contents(_ l: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_clear_contents", l) { $0.contents = nil }
}

@_cdecl("lamina_layer_contents_did_change")
public func c_contents_changed(_ l: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_contents_did_change", l) { $0.contentsDidChange() }
}

// MARK: Drawing

@_cdecl("lamina_layer_set_draw_callback")
public func c_set_draw(_ l: OpaquePointer?, _ draw: lamina_draw_fn?, _ user: UnsafeMutableRawPointer?, _ destroy: lamina_destroy_fn?) -> lamina_status {
    nonisolated(unsafe) let l = l, user = user
    return set("lamina_layer_set_draw_callback", l) { layer in
        guard let c = layer as? CAPILayer else {
            throw CAPIError(LAMINA_ERROR_UNSUPPORTED, "only layers made by lamina_layer_create take a draw callback (this one came from a scene file)")
        }
        c.setCallback(draw, user, destroy)
    }
}
@_cdecl("lamina_layer_set_needs_display") public func c_needs_display(_ l: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_needs_display", l) { $0.setNeedsDisplay() }
}
@_cdecl("lamina_layer_set_needs_display_in_rect") public func c_needs_display_in(_ l: OpaquePointer?, _ r: lamina_rect) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_needs_display_in_rect", l) {
        // (An infinite rectangle means the whole layer, a NaN one nothing: the layer's rules.)
        $0.setNeedsDisplay(Rect(x: r.x, y: r.y, width: r.width, height: r.height))
    }
}
@_cdecl("lamina_layer_display_if_needed") public func c_display_if_needed(_ l: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_display_if_needed", l) { try refuseInsideDraw("lamina_layer_display_if_needed"); try $0.displayIfNeeded() }
}
@_cdecl("lamina_layer_display_now") public func c_display_now(_ l: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_display_now", l) { try refuseInsideDraw("lamina_layer_display_now"); try $0.displayNow() }
}
@_cdecl("lamina_layer_display_count") public func c_display_count(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<UInt64>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_display_count", l) { try required(out).pointee = UInt64($0.displayCount) }
}

// MARK: Hosts

@_cdecl("lamina_host_create")
public func c_host_create(_ root: OpaquePointer?, _ t: OpaquePointer?, _ background: UnsafePointer<lamina_color>?,
                          _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let root = root, t = t, background = background, out = out
    return call("lamina_host_create") {
        let layer = try Handles.layer(root), target = try Handles.target(t)
        guard layer.superlayer == nil else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a host's root layer must have no superlayer") }
        let bg = try background.map { try color($0.pointee) }
        guard out != nil else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the out-pointer is NULL") }
        try give(.host(LayerTreeHost(rootLayer: layer, target: target, background: bg)), to: out)
    }
}
@_cdecl("lamina_host_set_composites_every_frame") public func c_host_every_frame(_ h: OpaquePointer?, _ v: Int32) -> lamina_status {
    nonisolated(unsafe) let h = h
    return call("lamina_host_set_composites_every_frame") { try Handles.host(h).compositesEveryFrame = v != 0 }
}
@_cdecl("lamina_host_last_frame")
public func c_host_last_frame(_ h: OpaquePointer?, _ calls: UnsafeMutablePointer<UInt64>?, _ bytes: UnsafeMutablePointer<UInt64>?) -> lamina_status {
    nonisolated(unsafe) let h = h, calls = calls, bytes = bytes
    return call("lamina_host_last_frame") {
        let f = try Handles.host(h).lastFrame
        try required(calls).pointee = UInt64(f.drawCalls); try required(bytes).pointee = UInt64(f.textureBytesUploaded)
    }
}
@_cdecl("lamina_host_detach") public func c_host_detach(_ h: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let h = h
    return call("lamina_host_detach") { try Handles.host(h).detach() }
}

// MARK: Transactions and the run loop

@_cdecl("lamina_transaction_begin") public func c_begin() -> lamina_status { call("lamina_transaction_begin") { Transaction.begin() } }
@_cdecl("lamina_transaction_commit") public func c_commit() -> lamina_status { call("lamina_transaction_commit") { try refuseInsideDraw("lamina_transaction_commit"); try Transaction.commit() } }
@_cdecl("lamina_flush") public func c_flush() -> lamina_status { call("lamina_flush") { try refuseInsideDraw("lamina_flush"); try Transaction.flush() } }
@_cdecl("lamina_transaction_set_disable_actions") public func c_disable_actions(_ v: Int32) -> lamina_status {
    call("lamina_transaction_set_disable_actions") { Transaction.setDisableActions(v != 0) }
}
@_cdecl("lamina_set_actions_disabled_by_default") public func c_actions_default(_ v: Int32) -> lamina_status {
    call("lamina_set_actions_disabled_by_default") { Transaction.disablesActionsByDefault = v != 0 }
}
@_cdecl("lamina_transaction_set_animation_duration") public func c_duration(_ v: Double) -> lamina_status {
    call("lamina_transaction_set_animation_duration") {
        guard v.isFinite, v >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a duration must be a number ≥ 0 (got \(v))") }
        Transaction.setAnimationDuration(v)
    }
}
@_cdecl("lamina_run_loop_fd") public func c_loop_fd(_ out: UnsafeMutablePointer<Int32>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_run_loop_fd") { try required(out).pointee = MainLoop.main.descriptor }
}
@_cdecl("lamina_run_loop_dispatch") public func c_loop_dispatch() -> lamina_status {
    call("lamina_run_loop_dispatch") { try refuseInsideDraw("lamina_run_loop_dispatch"); try MainLoop.main.dispatch() }
}
@_cdecl("lamina_run_loop_timeout") public func c_loop_timeout(_ out: UnsafeMutablePointer<Int32>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_run_loop_timeout") {
        let t = MainLoop.main.timeout
        try required(out).pointee = t.map { Int32(min(($0 * 1000).rounded(.up), Double(Int32.max))) } ?? -1
    }
}

// MARK: Scenes

@_cdecl("lamina_scene_load") public func c_scene_load(_ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let path = path, out = out
    return call("lamina_scene_load") {
        guard out != nil else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the out-pointer is NULL") }
        try give(.scene(SceneBox(try Scene.load(contentsOf: try cString(path, "the path")))), to: out)
    }
}
@_cdecl("lamina_scene_render_png")
public func c_scene_render(_ s: OpaquePointer?, _ d: OpaquePointer?, _ time: Double, _ path: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let s = s, d = d, path = path
    return call("lamina_scene_render_png") {
        guard time.isFinite, time >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the time must be a number ≥ 0 (got \(time))") }
        let scene = try Handles.scene(s), device = try Handles.device(d), file = try cString(path, "the path")
        try scene.render(device: device, time: time).image.writePNG(to: file)
    }
}
@_cdecl("lamina_scene_root_layer") public func c_scene_root(_ s: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let s = s, out = out
    return call("lamina_scene_root_layer") { try give(.layer(try Handles.scene(s).root), to: out) }
}
