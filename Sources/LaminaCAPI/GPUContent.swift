import CLamina
import FoundationEssentials
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaModel
@_spi(LaminaInternal) import LaminaValues

// MARK: GL layers

/// The C callback of a GL layer, called on the compositor's thread under a lock that its
/// replacement and the layer's end take: `destroy` never runs while `draw` does.
final class GLCallbackBox: @unchecked Sendable {
    private let lock = ConditionLock()
    private var draw: lamina_gl_draw_fn?
    private var user: UnsafeMutableRawPointer?
    private var destroy: lamina_destroy_fn?

    /// Replaces the callback; returns the old one's destroy, to run after the API call.
    func replace(_ d: lamina_gl_draw_fn?, _ u: UnsafeMutableRawPointer?, _ x: lamina_destroy_fn?) -> (() -> Void)? {
        lock.lock(); defer { lock.unlock() }
        let (oldDestroy, oldUser) = (destroy, user)
        (draw, user, destroy) = (d, u, x)
        guard let oldDestroy else { return nil }
        if oldUser == u, let x, unsafeBitCast(x, to: UInt.self) == unsafeBitCast(oldDestroy, to: UInt.self) { return nil }
        nonisolated(unsafe) let ou = oldUser
        return { oldDestroy(ou) }
    }

    func run(_ d: GLDrawable) {
        lock.lock(); defer { lock.unlock() }
        guard let draw else { return }
        let r = d.dirtyRect
        draw(d.framebuffer, Int32(clamping: d.pixelSize.width), Int32(clamping: d.pixelSize.height),
             lamina_pixel_rect(x: UInt32(clamping: r.x), y: UInt32(clamping: r.y), width: UInt32(clamping: r.width), height: UInt32(clamping: r.height)),
             user)
    }
}

final class CAPIGLLayer: GLLayer {
    let callback = GLCallbackBox()

    required init() {
        super.init()
        let box = callback
        drawHandler = { box.run($0) }
    }

    isolated deinit {
        if let destroy = callback.replace(nil, nil, nil) { pendingCallbacks.append(destroy) }
    }
}

@MainActor private func glLayer(_ l: Layer, _ name: String) throws -> CAPIGLLayer {
    guard let g = l as? CAPIGLLayer else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(name): the layer was not made by lamina_gl_layer_create") }
    return g
}

@_cdecl("lamina_gl_layer_create")
public func c_gl_layer_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_gl_layer_create") { try give(.layer(CAPIGLLayer()), to: out) }
}

@_cdecl("lamina_layer_set_gl_draw_callback")
public func c_set_gl_draw(_ l: OpaquePointer?, _ draw: lamina_gl_draw_fn?, _ user: UnsafeMutableRawPointer?, _ destroy: lamina_destroy_fn?) -> lamina_status {
    nonisolated(unsafe) let l = l, user = user
    return set("lamina_layer_set_gl_draw_callback", l) { layer in
        let g = try glLayer(layer, "lamina_layer_set_gl_draw_callback")
        if let old = g.callback.replace(draw, user, destroy) { pendingCallbacks.append(old) }
        g.setNeedsDisplay()
    }
}

@_cdecl("lamina_gl_layer_set_asynchronous")
public func c_gl_set_async(_ l: OpaquePointer?, _ on: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_gl_layer_set_asynchronous", l) { try glLayer($0, "lamina_gl_layer_set_asynchronous").isAsynchronous = on != 0 }
}

@_cdecl("lamina_gl_layer_set_drawable_options")
public func c_gl_set_options(_ l: OpaquePointer?, _ depthStencil: Int32, _ samples: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_gl_layer_set_drawable_options", l) { layer in
        let g = try glLayer(layer, "lamina_gl_layer_set_drawable_options")
        let ds: GLDrawableOptions.DepthStencil
        switch depthStencil {
        case 0: ds = .none
        case 1: ds = .depth24
        case 2: ds = .depth24Stencil8
        default: throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "depth_stencil is 0 (none), 1 (depth 24) or 2 (depth 24, stencil 8); got \(depthStencil)")
        }
        guard samples == 1 || samples == 4 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "samples is 1 or 4; got \(samples)") }
        g.drawableOptions = GLDrawableOptions(depthStencil: ds, samples: Int(samples))
    }
}

@_cdecl("lamina_gl_layer_draw_count")
public func c_gl_draw_count(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<UInt64>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_gl_layer_draw_count", l) { try required(out).pointee = UInt64(try glLayer($0, "lamina_gl_layer_draw_count").drawCount) }
}

// MARK: Shader layers and effects

/// A uniform's value from `count` floats. The count is checked before any value is read:
/// a wrong one (or a `size_t` past `Int.max`, negative here) reads nothing.
func shaderValue(_ values: UnsafePointer<Float>?, _ count: Int, _ name: String) throws -> ShaderValue {
    guard [1, 2, 3, 4, 9, 16].contains(count) else {
        throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "uniform '\(name)': count is 1 to 4, 9 or 16 floats; got \(UInt(bitPattern: count))")
    }
    guard let values else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the values of uniform '\(name)' are NULL") }
    let v = (0..<count).map { Double(values[$0]) }
    guard v.allSatisfy(\.isFinite) else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "uniform '\(name)': values must be finite") }
    switch count {
    case 1: return .float(v[0])
    case 2: return .vec2(v[0], v[1])
    case 3: return .vec3(v[0], v[1], v[2])
    case 4: return .vec4(v[0], v[1], v[2], v[3])
    case 9: return .mat3(v)
    default: return .mat4(v)   // 16
    }
}

@_cdecl("lamina_shader_layer_create")
public func c_shader_layer_create(_ source: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let source = source, out = out
    return call("lamina_shader_layer_create") {
        let text = try cString(source, "the fragment shader source")
        guard !text.isEmpty else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the fragment shader source is empty") }
        try give(.layer(ShaderLayer(fragmentShader: text)), to: out)
    }
}

@MainActor private func shaderLayer(_ l: Layer, _ name: String) throws -> ShaderLayer {
    guard let s = l as? ShaderLayer else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(name): the layer is not a shader layer (lamina_shader_layer_create)") }
    return s
}

@_cdecl("lamina_shader_layer_set_uniform")
public func c_shader_set_uniform(_ l: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ values: UnsafePointer<Float>?, _ count: Int) -> lamina_status {
    nonisolated(unsafe) let l = l, name = name, values = values
    return set("lamina_shader_layer_set_uniform", l) { layer in
        let s = try shaderLayer(layer, "lamina_shader_layer_set_uniform")
        let n = try cString(name, "the uniform's name")
        s.setUniform(n, try shaderValue(values, count, n))
    }
}

@_cdecl("lamina_shader_layer_set_animating")
public func c_shader_set_animating(_ l: OpaquePointer?, _ on: Int32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_shader_layer_set_animating", l) { try shaderLayer($0, "lamina_shader_layer_set_animating").isAnimating = on != 0 }
}

@_cdecl("lamina_layer_set_shader_effect")
public func c_set_shader_effect(_ l: OpaquePointer?, _ source: UnsafePointer<CChar>?, _ dx: Double, _ dy: Double) -> lamina_status {
    nonisolated(unsafe) let l = l, source = source
    return set("lamina_layer_set_shader_effect", l) { layer in
        guard let source else { layer.shaderEffect = nil; return }
        try finite(dx, dy, what: "max_sample_dx/dy")
        guard dx >= 0, dy >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "max_sample_dx/dy must be 0 or more") }
        let text = String(cString: source)
        guard !text.isEmpty else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the fragment shader source is empty (pass NULL to remove the effect)") }
        layer.shaderEffect = ShaderEffect(fragmentShader: text, uniforms: layer.shaderEffect?.uniforms ?? [:],
                                          maxSampleOffset: Size(width: dx, height: dy))
    }
}

@_cdecl("lamina_layer_set_shader_effect_uniform")
public func c_set_shader_effect_uniform(_ l: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ values: UnsafePointer<Float>?, _ count: Int) -> lamina_status {
    nonisolated(unsafe) let l = l, name = name, values = values
    return set("lamina_layer_set_shader_effect_uniform", l) { layer in
        guard var effect = layer.shaderEffect else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the layer has no shader effect (lamina_layer_set_shader_effect first)")
        }
        let n = try cString(name, "the uniform's name")
        effect.uniforms[n] = try shaderValue(values, count, n)
        layer.shaderEffect = effect
    }
}
