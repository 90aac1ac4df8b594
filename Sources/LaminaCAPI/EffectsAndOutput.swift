import CLamina
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaValues

// Layer effects, presentation values and a host's retained output, through the C API
// (the property setters and the rest are in CAPI.swift).

@_cdecl("lamina_layer_set_shadow")
public func c_set_shadow(_ l: OpaquePointer?, _ c: lamina_color, _ opacity: Double, _ offset: lamina_size, _ radius: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_shadow", l) {
        try finite(opacity, offset.width, offset.height, radius, what: "the shadow's opacity, offset and radius")
        guard radius >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a shadow radius must be ≥ 0 (got \(radius))") }
        $0.shadowColor = try color(c)
        $0.shadowOpacity = opacity
        $0.shadowOffset = Size(width: offset.width, height: offset.height)
        $0.shadowRadius = radius
    }
}
@_cdecl("lamina_layer_set_mask") public func c_set_mask(_ l: OpaquePointer?, _ m: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l, m = m
    return set("lamina_layer_set_mask", l) { layer in
        guard let m else { layer.mask = nil; return }
        let mask = try Handles.layer(m)
        guard mask !== layer, mask.superlayer == nil else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a mask must be another layer, of no tree (remove it from its superlayer first)")
        }
        layer.mask = mask
        guard layer.mask === mask else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "this mask would make a cycle (it is the layer or one of its ancestors)") }
    }
}
@_cdecl("lamina_layer_set_blend_mode") public func c_set_blend_mode(_ l: OpaquePointer?, _ mode: lamina_blend_mode) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_blend_mode", l) {
        let modes: [BlendMode?] = [nil, .multiply, .screen, .overlay, .darken, .lighten, .difference, .plusLighter]
        guard Int(mode.rawValue) < modes.count else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown blend mode \(mode.rawValue)") }
        $0.compositingFilter = modes[Int(mode.rawValue)]
    }
}
@_cdecl("lamina_layer_set_backdrop_blur") public func c_set_backdrop_blur(_ l: OpaquePointer?, _ radius: Double) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_backdrop_blur", l) {
        try finite(radius, what: "a blur radius")
        guard radius >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a blur radius must be ≥ 0 (got \(radius))") }
        $0.backgroundFilters = radius > 0 ? [.gaussianBlur(radius: radius)] : []
    }
}
@_cdecl("lamina_layer_presentation") public func c_presentation(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return call("lamina_layer_presentation") { try give(.layer(try Handles.layer(l).presentation()), to: out) }
}

// MARK: Retained output

@_cdecl("lamina_host_present")
public func c_host_present(_ h: OpaquePointer?, _ t: OpaquePointer?, _ rect: UnsafePointer<lamina_rect>?) -> lamina_status {
    nonisolated(unsafe) let h = h, t = t, rect = rect
    return call("lamina_host_present") {
        let host = try Handles.host(h), destination = try Handles.target(t)
        var r: Rect?
        if let p = rect?.pointee {
            try finite(p.x, p.y, p.width, p.height, what: "the rectangle")
            r = Rect(x: p.x, y: p.y, width: p.width, height: p.height)
        }
        try host.present(into: destination, in: r)
    }
}
@_cdecl("lamina_host_texture") public func c_host_texture(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> lamina_status {
    nonisolated(unsafe) let h = h, out = out
    return call("lamina_host_texture") {
        let o = try required(out)
        guard let texture = try Handles.host(h).target.texture else {
            throw CAPIError(LAMINA_ERROR_UNSUPPORTED, "this host renders into a caller's framebuffer: it has no output texture (give it an offscreen target)")
        }
        o.pointee = texture.glName
    }
}
