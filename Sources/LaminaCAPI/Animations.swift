import CLamina
import LaminaCore
import LaminaGeometry
import LaminaValues

// lamina_layer_add_animation: a `lamina_animation` description made into Lamina's
// BasicAnimation, KeyframeAnimation, SpringAnimation or AnimationGroup.

@_cdecl("lamina_animation_init")
public func c_animation_init(_ a: UnsafeMutablePointer<lamina_animation>?, _ kind: lamina_animation_kind,
                             _ keyPath: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let a = a, keyPath = keyPath
    return call("lamina_animation_init") {
        let p = try required(a)
        var d = lamina_animation()
        d.kind = kind
        d.key_path = keyPath
        d.components = 1
        d.duration = 0.25
        d.speed = 1
        d.removed_on_completion = 1
        d.mass = 1
        d.stiffness = 100
        d.damping = 10
        p.pointee = d
    }
}

/// How a description's values are read: `components` doubles each, by key path. Numbers,
/// points, sizes, rects, colours and transforms take 1, 2, 4 or 16; a gradient's `colors`
/// 4 per colour (1 to 16 colours), its `locations` one per stop (1 to 16); a shape layer's
/// `path` the numbers of the layer's current path (`Path.morphComponents`: x, y of each
/// point, in the order `lamina_shape_layer_set_path` takes them), its operations kept.
@MainActor private struct ValueReader {
    let keyPath: String
    let components: Int
    /// The path whose operations a `path` value takes (the layer's current one).
    let pathShape: Path?
    /// Why values of this size cannot be read for this key path (thrown at the first value
    /// given: an animation without values — from the shown value to the model's — needs none).
    private let problem: CAPIError?

    init(keyPath: String, components: Int, layer: Layer) {
        self.keyPath = keyPath
        self.components = components
        pathShape = keyPath == "path" ? (layer as? ShapeLayer)?.path : nil
        switch keyPath {
        case "colors" where !(components >= 4 && components <= 64 && components % 4 == 0),
             "locations" where !(components >= 1 && components <= 16):
            problem = CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\"colors\" take 4 components per colour (1 to 16 colours), \"locations\" one per stop (1 to 16) (got \(components))")
        case "colors", "locations": problem = nil
        case "path":
            if let n = pathShape?.morphComponents.count {
                problem = components == n ? nil : CAPIError(LAMINA_ERROR_INVALID_ARGUMENT,
                    "a path value is the \(n) numbers of the layer's path (x, y of each point in order; components \(n)), its operations kept (got \(components))")
            } else {
                problem = CAPIError(LAMINA_ERROR_INVALID_ARGUMENT,
                                    "a path value needs a shape layer with a path: its values are that path's points (set one with lamina_shape_layer_set_path first)")
            }
        default:
            problem = [1, 2, 4, 16].contains(components) ? nil
                : CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "components must be 1, 2, 4 or 16 (got \(components) for '\(keyPath)')")
        }
    }

    func value(_ p: UnsafePointer<Double>?, _ what: String) throws -> AnimationValue? {
        guard let p else { return nil }
        // (Checked before reading: `components` says how many doubles the caller's array holds.)
        if let problem { throw problem }
        let v = (0..<components).map { p[$0] }
        guard v.allSatisfy(\.isFinite) else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the \(what) value must be finite numbers") }
        switch keyPath {
        case "colors":
            return .colors(stride(from: 0, to: v.count, by: 4).map { Color(red: v[$0], green: v[$0 + 1], blue: v[$0 + 2], alpha: v[$0 + 3]) })
        case "locations": return .numbers(v)
        case "path": return .path(pathShape?.withMorphComponents(v))
        default: break
        }
        switch components {
        case 1: return .number(v[0])
        case 2:
            let isSize = keyPath.hasSuffix("size") || keyPath.hasSuffix("Size") || keyPath == "shadowOffset"
            return isSize ? .size(Size(width: v[0], height: v[1])) : .point(Point(x: v[0], y: v[1]))
        case 4:
            if keyPath.hasSuffix("Color") { return .color(Color(red: v[0], green: v[1], blue: v[2], alpha: v[3])) }
            return .rect(Rect(x: v[0], y: v[1], width: v[2], height: v[3]))
        default:
            return .transform(Transform3D(v))
        }
    }
}

private struct DoneCallback: @unchecked Sendable {
    let function: lamina_animation_done_fn
    let userData: UnsafeMutableRawPointer?
}

/// Lamina's animation for a description: groups nest at most 64 levels, 10 000 animations
/// in all (a child array pointing back at its group would otherwise never end).
@MainActor private func animation(_ d: lamina_animation, on layer: Layer, depth: Int = 0, total: inout Int) throws -> any Animation {
    guard depth < 64 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "animation groups nest deeper than 64 levels") }
    total += 1
    guard total <= 10_000 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "more than 10000 animations in one group") }
    let keyPath = d.key_path.map { String(cString: $0) } ?? ""
    var result: any Animation
    switch d.kind {
    case LAMINA_ANIMATION_BASIC:
        let r = ValueReader(keyPath: keyPath, components: d.components, layer: layer)
        var b = BasicAnimation(keyPath: keyPath)
        b.fromValue = try r.value(d.from, "from")
        b.toValue = try r.value(d.to, "to")
        b.byValue = try r.value(d.by, "by")
        result = b
    case LAMINA_ANIMATION_SPRING:
        try finite(d.mass, d.stiffness, d.damping, d.initial_velocity, what: "the spring's mass, stiffness, damping and velocity")
        guard d.mass > 0, d.stiffness > 0, d.damping >= 0 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a spring needs mass > 0, stiffness > 0 and damping ≥ 0")
        }
        let r = ValueReader(keyPath: keyPath, components: d.components, layer: layer)
        var s = SpringAnimation(keyPath: keyPath)
        s.fromValue = try r.value(d.from, "from")
        s.toValue = try r.value(d.to, "to")
        s.byValue = try r.value(d.by, "by")
        (s.mass, s.stiffness, s.damping, s.initialVelocity) = (d.mass, d.stiffness, d.damping, d.initial_velocity)
        result = s
    case LAMINA_ANIMATION_KEYFRAME:
        guard let values = d.values, d.value_count > 0, d.value_count <= 100_000 else {   // (a size_t past Int.max is < 0)
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a keyframe animation needs 1 to 100000 values")
        }
        var k = KeyframeAnimation(keyPath: keyPath)
        let r = ValueReader(keyPath: keyPath, components: d.components, layer: layer)
        k.values = try (0..<Int(d.value_count)).map { i in try r.value(values + i * r.components, "keyframe")! }
        if let times = d.key_times {
            let t = (0..<Int(d.value_count)).map { times[$0] }
            guard t.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }), zip(t, t.dropFirst()).allSatisfy({ $0 <= $1 }) else {
                throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "key times must rise from 0 to 1")
            }
            k.keyTimes = t
        }
        result = k
    case LAMINA_ANIMATION_GROUP:
        // (size_t arrives as Int: a count past Int.max is negative.)
        guard d.child_count >= 0, d.child_count <= 10_000, d.child_count == 0 || d.children != nil else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a group needs 0 to 10000 children, and a child array when it has some")
        }
        var children: [any Animation] = []
        for i in 0..<d.child_count { children.append(try animation(d.children[i], on: layer, depth: depth + 1, total: &total)) }
        result = AnimationGroup(children)
    default:
        throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown animation kind \(d.kind.rawValue)")
    }
    result.duration = d.duration
    result.speed = d.speed
    result.repeatCount = d.repeat_count
    result.autoreverses = d.autoreverses != 0
    result.isRemovedOnCompletion = d.removed_on_completion != 0
    switch d.fill_mode {
    case LAMINA_FILL_REMOVED: result.fillMode = .removed
    case LAMINA_FILL_FORWARDS: result.fillMode = .forwards
    case LAMINA_FILL_BACKWARDS: result.fillMode = .backwards
    case LAMINA_FILL_BOTH: result.fillMode = .both
    default: throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown fill mode \(d.fill_mode.rawValue)")
    }
    switch d.timing_function {
    case LAMINA_TIMING_DEFAULT: result.timingFunction = nil
    case LAMINA_TIMING_LINEAR: result.timingFunction = .linear
    case LAMINA_TIMING_EASE_IN: result.timingFunction = .easeIn
    case LAMINA_TIMING_EASE_OUT: result.timingFunction = .easeOut
    case LAMINA_TIMING_EASE_IN_EASE_OUT: result.timingFunction = .easeInEaseOut
    case LAMINA_TIMING_BEZIER:
        let b = d.bezier
        try finite(b.0, b.1, b.2, b.3, what: "the Bézier control points")
        guard (0...1).contains(b.0), (0...1).contains(b.2) else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a timing curve's x1 and x2 must lie in 0…1")
        }
        result.timingFunction = TimingFunction(controlPoints: b.0, b.1, b.2, b.3)
    default: throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown timing function \(d.timing_function.rawValue)")
    }
    if let function = d.done {
        let done = DoneCallback(function: function, userData: d.done_user_data)
        // Once the outermost Lamina call returns (the commit that ended it, say), as other
        // callbacks: one that commits does not re-enter the commit.
        result.didStop = { finished in
            let call = { done.function(finished ? 1 : 0, done.userData) }
            if callDepth == 0 { call() } else { pendingCallbacks.append(call) }
        }
    }
    return result
}

nonisolated(unsafe) private var generatedKeys = 0

@_cdecl("lamina_layer_add_animation")
public func c_layer_add_animation(_ l: OpaquePointer?, _ a: UnsafePointer<lamina_animation>?, _ key: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let l = l, a = a, key = key
    return call("lamina_layer_add_animation") {
        let layer = try Handles.layer(l)
        guard let a else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the animation is NULL") }
        var total = 0
        var made = try animation(a.pointee, on: layer, total: &total)
        try finite(a.pointee.delay, what: "the delay")
        if a.pointee.delay > 0 { made.beginTime = layer.convertTime(MediaClock.now(), from: nil) + a.pointee.delay }
        // (A layer kind's own keys count: a shape layer's strokeEnd, say.)
        guard let effect = made.makeEffect(customKeys: { layer.value(forKey: $0) != nil }) else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "'\(a.pointee.key_path.map { String(cString: $0) } ?? "")' cannot be animated with these values (see docs/animations.md for the key paths)")
        }
        guard effect.hasValidTiming else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the timing is not usable (duration, speed and repeat count must be finite, duration ≥ 0, repeat count ≥ 0)")
        }
        let name: String
        if let key { name = String(cString: key) } else { generatedKeys += 1; name = "lamina.animation.\(generatedKeys)" }
        layer.add(made, forKey: name)
    }
}

@_cdecl("lamina_layer_add_transition")
public func c_layer_add_transition(_ l: OpaquePointer?, _ type: lamina_transition_type, _ subtype: lamina_transition_subtype,
                                   _ duration: Double, _ timing: lamina_timing_function, _ key: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let l = l, key = key
    return call("lamina_layer_add_transition") {
        let layer = try Handles.layer(l)
        let kinds: [lamina_transition_type: TransitionAnimation.Kind] = [
            LAMINA_TRANSITION_FADE: .fade, LAMINA_TRANSITION_PUSH: .push, LAMINA_TRANSITION_MOVE_IN: .moveIn, LAMINA_TRANSITION_REVEAL: .reveal]
        let subtypes: [lamina_transition_subtype: TransitionAnimation.Subtype] = [
            LAMINA_TRANSITION_FROM_LEFT: .fromLeft, LAMINA_TRANSITION_FROM_RIGHT: .fromRight,
            LAMINA_TRANSITION_FROM_TOP: .fromTop, LAMINA_TRANSITION_FROM_BOTTOM: .fromBottom]
        guard let kind = kinds[type] else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown transition type \(type.rawValue)") }
        guard let side = subtypes[subtype] else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown transition subtype \(subtype.rawValue)") }
        try finite(duration, what: "the duration")
        var t = TransitionAnimation(type: kind, subtype: side)
        t.duration = duration > 0 ? duration : layer.transactionContext.animationDuration()
        switch timing {
        case LAMINA_TIMING_DEFAULT: t.timingFunction = layer.transactionContext.animationTimingFunction() ?? .default
        case LAMINA_TIMING_LINEAR: t.timingFunction = .linear
        case LAMINA_TIMING_EASE_IN: t.timingFunction = .easeIn
        case LAMINA_TIMING_EASE_OUT: t.timingFunction = .easeOut
        case LAMINA_TIMING_EASE_IN_EASE_OUT: t.timingFunction = .easeInEaseOut
        default: throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a transition's timing is LAMINA_TIMING_DEFAULT … LAMINA_TIMING_EASE_IN_EASE_OUT (got \(timing.rawValue))")
        }
        layer.add(t, forKey: key.map { String(cString: $0) } ?? "transition")
    }
}

@_cdecl("lamina_layer_remove_animation")
public func c_layer_remove_animation(_ l: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let l = l, key = key
    return call("lamina_layer_remove_animation") { try Handles.layer(l).removeAnimation(forKey: try cString(key, "the key")) }
}

@_cdecl("lamina_layer_remove_all_animations")
public func c_layer_remove_all_animations(_ l: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let l = l
    return call("lamina_layer_remove_all_animations") { try Handles.layer(l).removeAllAnimations() }
}

@_cdecl("lamina_layer_has_animation")
public func c_layer_has_animation(_ l: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Int32>?) -> lamina_status {
    nonisolated(unsafe) let l = l, key = key, out = out
    return call("lamina_layer_has_animation") {
        try required(out).pointee = try Handles.layer(l).animation(forKey: try cString(key, "the key")) != nil ? 1 : 0
    }
}
