import FoundationEssentials
import Glibc
import LaminaGeometry

/// A value of an animatable property (`fromValue`, `toValue`, keyframe values): Core
/// Animation takes `Any`; Lamina names the kinds. A value of the wrong kind for its key
/// path is converted where that is meaningful (a number for a point animates both
/// coordinates) and otherwise ignored (the property shows its model value).
public enum AnimationValue: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case point(Point)
    case size(Size)
    case rect(Rect)
    /// A colour; `nil` (no background) interpolates as transparent black.
    case color(Color?)
    case transform(Transform3D)
    /// Contents (a `contents` animation's values: `.image(_:)` makes one); nil is no
    /// contents. Not interpolated: a layer cross-fades between them.
    case contents(ContentRef?)
    /// A shader uniform's value (`uniforms.NAME` of a `ShaderLayer`), interpolated per
    /// component.
    case shader(ShaderValue)
    /// A path (`ShapeLayer.path`); nil is no path. Two paths of the same elements (kinds
    /// and order: `Path.structure`) morph point by point; others switch half-way.
    case path(Path?)
    /// A list of colours (`GradientLayer.colors`), interpolated colour by colour
    /// (premultiplied) when the counts agree; otherwise switched half-way.
    case colors([Color])
    /// A list of numbers (`GradientLayer.locations`), interpolated when the counts agree.
    case numbers([Double])

    public var description: String {
        switch self {
        case .number(let v): return "\(v)"
        case .point(let p): return "\(p)"
        case .size(let s): return "\(s)"
        case .rect(let r): return "\(r)"
        case .color(let c): return c.map { "\($0)" } ?? "nil"
        case .transform(let t): return "\(t.values)"
        case .contents(let c): return c.map { "contents(\($0.pixelSize))" } ?? "no contents"
        case .shader(let v): return "\(v)"
        case .path(let p): return p.map { "path of \($0.elements.count) elements" } ?? "no path"
        case .colors(let c): return "\(c)"
        case .numbers(let v): return "\(v)"
        }
    }

    /// The components arithmetic and interpolation work on: colours premultiplied (so a
    /// fade to transparent does not darken), transforms as their 16 elements (transform
    /// interpolation itself goes through decomposition: `interpolate`).
    package var components: [Double] {
        switch self {
        case .number(let v): return [v]
        case .point(let p): return [p.x, p.y]
        case .size(let s): return [s.width, s.height]
        case .rect(let r): return [r.origin.x, r.origin.y, r.size.width, r.size.height]
        case .color(let c):
            let c = c ?? .clear
            return [c.red * c.alpha, c.green * c.alpha, c.blue * c.alpha, c.alpha]
        case .transform(let t): return t.values
        case .contents: return []
        case .shader(let v): return v.components
        case .path(let p): return p?.morphComponents ?? []
        case .colors(let cs): return cs.flatMap { [$0.red * $0.alpha, $0.green * $0.alpha, $0.blue * $0.alpha, $0.alpha] }
        case .numbers(let v): return v
        }
    }

    /// A colour from premultiplied components (clamped).
    private static func color(premultiplied v: ArraySlice<Double>) -> Color {
        let i = v.startIndex
        let a = min(max(v[i + 3], 0), 1)
        guard a > 0 else { return .clear }
        func un(_ x: Double) -> Double { min(max(x / a, 0), 1) }
        return Color(red: un(v[i]), green: un(v[i + 1]), blue: un(v[i + 2]), alpha: a)
    }

    /// A value of `kind`'s kind from components (premultiplied for colours).
    static func like(_ kind: AnimationValue, _ v: [Double]) -> AnimationValue {
        switch kind {
        case .number: return .number(v[0])
        case .point: return .point(Point(x: v[0], y: v[1]))
        case .size: return .size(Size(width: v[0], height: v[1]))
        case .rect: return .rect(Rect(x: v[0], y: v[1], width: v[2], height: v[3]))
        case .color: return .color(color(premultiplied: v[...]))
        case .transform: return .transform(Transform3D(v))
        case .contents: return kind
        case .shader(let s): return .shader(s.with(v) ?? s)
        case .path(let p): return .path(p.flatMap { $0.withMorphComponents(v) } ?? p)
        case .colors(let cs):
            guard v.count == cs.count * 4 else { return kind }
            return .colors(stride(from: 0, to: v.count, by: 4).map { color(premultiplied: v[$0..<$0 + 4]) })
        case .numbers: return .numbers(v)
        }
    }

    /// Every component is finite.
    package var isFinite: Bool {
        switch self {
        case .number(let v): return v.isFinite
        case .point(let p): return p.isFinite
        case .size(let s): return s.isFinite
        case .rect(let r): return r.isFinite
        case .color(let c): return c?.isFinite ?? true
        case .transform(let t): return t.isFinite
        case .contents: return true
        case .shader(let v): return v.isValid
        case .path(let p): return p?.isFinite ?? true
        case .colors(let cs): return cs.allSatisfy(\.isFinite)
        case .numbers(let v): return v.allSatisfy(\.isFinite)
        }
    }

    /// Whether two values are of the same kind. (Cases compared by index: a switch over
    /// the pair copied both values into a tuple first — twice an animation a frame.)
    func isSameKind(as other: AnimationValue) -> Bool {
        if case .shader(let a) = self {
            guard case .shader(let b) = other else { return false }
            return a.typeName == b.typeName && a.components.count == b.components.count
        }
        return caseIndex == other.caseIndex
    }

    /// Which case it is, payloads aside.
    private var caseIndex: Int {
        switch self {
        case .number: return 0
        case .point: return 1
        case .size: return 2
        case .rect: return 3
        case .color: return 4
        case .transform: return 5
        case .contents: return 6
        case .shader: return 7
        case .path: return 8
        case .colors: return 9
        case .numbers: return 10
        }
    }

    /// This value as `kind`'s kind, when it can be read so: a number becomes a point,
    /// size or rect of that number everywhere (and a uniform scale as a transform); nil
    /// otherwise.
    package func converted(like kind: AnimationValue) -> AnimationValue? {
        // (A number as a number made anew: returning `self` copied it through the enum's
        // generic copy, twice a basic animation a frame.)
        if case .number(let x) = self, case .number = kind { return .number(x) }
        if isSameKind(as: kind) { return self }
        if case .shader(let s) = kind {
            // A number for every component, a point for a vec2, a colour for a vec4 (straight).
            switch self {
            case .number(let v): return s.with(Array(repeating: v, count: s.components.count)).map { .shader($0) }
            case .point(let p): return s.with([p.x, p.y]).map { .shader($0) }
            case .size(let z): return s.with([z.width, z.height]).map { .shader($0) }
            case .color(let c): let c = c ?? .clear; return s.with([c.red, c.green, c.blue, c.alpha]).map { .shader($0) }
            default: return nil
            }
        }
        if case .number(let v) = self {
            switch kind {
            case .point: return .point(Point(x: v, y: v))
            case .size: return .size(Size(width: v, height: v))
            case .rect: return .rect(Rect(x: v, y: v, width: v, height: v))
            case .transform: return .transform(Transform3D(scaleX: v, y: v, z: v))
            default: return nil
            }
        }
        return nil
    }

    /// Whether the two values interpolate number by number: the same kind and count of
    /// numbers, and for paths the same elements (`Path.structure`).
    package func morphs(into other: AnimationValue) -> Bool {
        if case .path(let x) = self, case .path(let y) = other { return x?.structure == y?.structure }
        return isSameKind(as: other) && components.count == other.components.count
    }

    /// `a` + (`b` − `a`)·`f`: component-wise (colours premultiplied); transforms by
    /// decomposition (`Transform3D.interpolate`: the rotation the short way). Values that
    /// do not morph into each other (paths of other elements, lists of other lengths)
    /// switch half-way.
    static func interpolate(_ a: AnimationValue, _ b: AnimationValue, _ f: Double) -> AnimationValue {
        // (Numbers, the most common, without the component arrays: the same arithmetic.)
        if case .number(let x) = a, case .number(let y) = b { return .number(x + (y - x) * f) }
        if case .transform(let x) = a, case .transform(let y) = b {
            return .transform(Transform3D.interpolate(from: x, to: y, fraction: f))
        }
        if case .path = a, !a.morphs(into: b) { return f < 0.5 ? a : b }
        let x = a.components, y = b.components
        guard x.count == y.count, !x.isEmpty else { return f < 0.5 ? a : b }
        var out = x
        for i in out.indices { out[i] = x[i] + (y[i] - x[i]) * f }
        return like(a, out)
    }

    /// `a` + `b`: component-wise; transforms concatenate (`b` applied first, then `a`,
    /// as an additive transform animation composes with what is below it).
    static func adding(_ a: AnimationValue, _ b: AnimationValue) -> AnimationValue {
        if case .transform(let x) = a, case .transform(let y) = b { return .transform(y.concatenating(x)) }
        let x = a.components, y = b.components
        guard x.count == y.count else { return a }
        var out = x
        for i in out.indices { out[i] = x[i] + y[i] }
        return like(a, out)
    }

    /// `a` − `b`: component-wise; for transforms `b`⁻¹ then `a` is not needed by Core
    /// Animation's rules and is approximated by element differences.
    static func subtracting(_ a: AnimationValue, _ b: AnimationValue) -> AnimationValue {
        let x = a.components, y = b.components
        guard x.count == y.count else { return a }
        var out = x
        for i in out.indices { out[i] = x[i] - y[i] }
        if case .transform = a { return .transform(Transform3D(out).concatenatingIdentityDiagonal()) }
        return like(a, out)
    }

    /// `a`·`n` component-wise (cumulative animations add the change of each finished
    /// iteration); a transform is concatenated with itself `n` times.
    static func scaled(_ a: AnimationValue, by n: Int) -> AnimationValue {
        if case .transform(let t) = a {
            // tⁿ by squaring: O(log n) products (a cumulative animation may be in its
            // billionth repetition).
            var out = Transform3D.identity, base = t, k = max(0, n)
            while k > 0 {
                if k & 1 == 1 { out = out.concatenating(base) }
                base = base.concatenating(base)
                k >>= 1
            }
            return .transform(out)
        }
        return like(a, a.components.map { $0 * Double(n) })
    }
}

extension Transform3D {
    /// A difference of two transforms' elements read as a transform: the diagonal of the
    /// identity added back (so that "to − by" of two transforms stays near a transform).
    fileprivate func concatenatingIdentityDiagonal() -> Transform3D {
        var t = self
        t.m11 += 1; t.m22 += 1; t.m33 += 1; t.m44 += 1
        return t
    }
}

/// An animatable property of a layer, named by Core Animation's key path ("position",
/// "bounds.size.width", "transform.rotation.z", …). Parsed once, when the animation is
/// added: evaluating it hashes no strings.
public struct AnimatableProperty: Hashable, Sendable, CustomStringConvertible {
    package enum Base: Hashable, Sendable {
        case position, positionX, positionY, zPosition
        case bounds, boundsOrigin, boundsSize, boundsWidth, boundsHeight
        case anchorPoint, anchorPointZ
        case transform, sublayerTransform
        /// A component of `transform` or `sublayerTransform` (`Transform3D.value(forKeyPath:)`).
        case transformComponent(sublayer: Bool, component: TransformComponent)
        case opacity, backgroundColor, borderColor, borderWidth, cornerRadius
        case contentsRect, contentsCenter
        case shadowOpacity, shadowRadius, shadowOffset, shadowColor
        /// Cross-faded (`AnimationEffect.Kind.contents`), not set.
        case contents
        /// A `ShaderLayer` uniform (`uniforms.NAME`).
        case uniform(String)
        /// A uniform of the layer's shader effect (`shaderEffect.uniforms.NAME`).
        case effectUniform(String)
        /// A key of the layer's own kind (`LayerProperties.custom`): drawn by the model.
        case custom(String)
        /// A `GradientLayer`'s `startPoint`, `endPoint`, `colors` and `locations` (drawn by
        /// the renderer).
        case gradientStartPoint, gradientEndPoint, gradientColors, gradientLocations
    }
    package let base: Base
    /// The key path it was made from.
    public let keyPath: String

    /// The property a key path names; nil when it is not animatable.
    public init?(keyPath: String) {
        let b: Base
        switch keyPath {
        case "position": b = .position
        case "position.x": b = .positionX
        case "position.y": b = .positionY
        case "zPosition": b = .zPosition
        case "bounds": b = .bounds
        case "bounds.origin": b = .boundsOrigin
        case "bounds.size": b = .boundsSize
        case "bounds.size.width": b = .boundsWidth
        case "bounds.size.height": b = .boundsHeight
        case "anchorPoint": b = .anchorPoint
        case "anchorPointZ": b = .anchorPointZ
        case "transform": b = .transform
        case "sublayerTransform": b = .sublayerTransform
        case "opacity": b = .opacity
        case "backgroundColor": b = .backgroundColor
        case "borderColor": b = .borderColor
        case "borderWidth": b = .borderWidth
        case "cornerRadius": b = .cornerRadius
        case "contentsRect": b = .contentsRect
        case "contentsCenter": b = .contentsCenter
        case "contents": b = .contents
        case "shadowOpacity": b = .shadowOpacity
        case "shadowRadius": b = .shadowRadius
        case "shadowOffset": b = .shadowOffset
        case "shadowColor": b = .shadowColor
        case "startPoint": b = .gradientStartPoint
        case "endPoint": b = .gradientEndPoint
        case "colors": b = .gradientColors
        case "locations": b = .gradientLocations
        default:
            if keyPath.hasPrefix("shaderEffect.uniforms."), keyPath.count > 22 {
                self.base = .effectUniform(String(keyPath.dropFirst(22)))
                self.keyPath = keyPath
                return
            }
            if keyPath.hasPrefix("uniforms."), keyPath.count > 9 {
                self.base = .uniform(String(keyPath.dropFirst(9)))
                self.keyPath = keyPath
                return
            }
            for (prefix, sub) in [("transform.", false), ("sublayerTransform.", true)] where keyPath.hasPrefix(prefix) {
                guard let component = TransformComponent(rawValue: String(keyPath.dropFirst(prefix.count))) else { return nil }
                self.base = .transformComponent(sublayer: sub, component: component)
                self.keyPath = keyPath
                return
            }
            return nil
        }
        base = b
        self.keyPath = keyPath
    }

    /// A key of a layer kind's own (`ShapeLayer.strokeEnd`, a subclass's key): its values
    /// are in `LayerProperties.custom`, and the layer draws them (`needsDisplay(forKey:)`).
    public init(customKey key: String) {
        base = .custom(key)
        keyPath = key
    }

    /// The property a key path names, for a layer whose own keys are `isCustomKey`.
    public init?(keyPath: String, customKeys isCustomKey: (String) -> Bool) {
        if let p = AnimatableProperty(keyPath: keyPath) { self = p; return }
        guard isCustomKey(keyPath) else { return nil }
        self.init(customKey: keyPath)
    }

    /// The custom key this property is, if it is one.
    public var customKey: String? {
        if case .custom(let k) = base { return k }
        return nil
    }

    public var description: String { keyPath }

    /// A shader uniform or a custom key (its kind is the type of its current value).
    package var isUniform: Bool {
        switch base {
        case .uniform, .effectUniform, .custom: return true
        default: return false
        }
    }

    /// What a change of this property changes for a renderer.
    var changes: LayerChanges {
        switch base {
        case .position, .positionX, .positionY, .bounds, .boundsOrigin, .boundsSize, .boundsWidth, .boundsHeight,
             .anchorPoint, .anchorPointZ, .transform, .sublayerTransform, .transformComponent: return .geometry
        case .zPosition: return .zPosition
        case .opacity: return .opacity
        case .backgroundColor: return .background
        case .borderColor, .borderWidth: return .border
        case .cornerRadius: return .cornerRadius
        case .contentsRect, .contentsCenter, .contents, .uniform: return .contents
        case .effectUniform: return .effects
        case .custom: return []
        case .gradientStartPoint, .gradientEndPoint, .gradientColors, .gradientLocations: return .effects
        case .shadowOpacity, .shadowRadius, .shadowOffset, .shadowColor: return .shadow
        }
    }

    /// The property's value in `p`.
    package func value(in p: LayerProperties) -> AnimationValue {
        switch base {
        case .position: return .point(p.position)
        case .positionX: return .number(p.position.x)
        case .positionY: return .number(p.position.y)
        case .zPosition: return .number(p.zPosition)
        case .bounds: return .rect(p.bounds)
        case .boundsOrigin: return .point(p.bounds.origin)
        case .boundsSize: return .size(p.bounds.size)
        case .boundsWidth: return .number(p.bounds.size.width)
        case .boundsHeight: return .number(p.bounds.size.height)
        case .anchorPoint: return .point(p.anchorPoint)
        case .anchorPointZ: return .number(p.anchorPointZ)
        case .transform: return .transform(p.transform)
        case .sublayerTransform: return .transform(p.sublayerTransform)
        case .transformComponent(let sub, let component):
            return .number((sub ? p.sublayerTransform : p.transform).value(for: component))
        case .opacity: return .number(p.opacity)
        case .backgroundColor: return .color(p.backgroundColor)
        case .borderColor: return .color(p.borderColor)
        case .borderWidth: return .number(p.borderWidth)
        case .cornerRadius: return .number(p.cornerRadius)
        case .contentsRect: return .rect(p.contentsRect)
        case .contentsCenter: return .rect(p.contentsCenter)
        case .contents: return .contents(nil)   // (not in the properties: the layer's state has it)
        case .shadowOpacity: return .number(p.shadowOpacity)
        case .shadowRadius: return .number(p.shadowRadius)
        case .shadowOffset: return .size(p.shadowOffset)
        case .shadowColor: return .color(p.shadowColor)
        case .uniform(let name): return p.shader?.uniforms[name].map { .shader($0) } ?? .number(0)
        case .effectUniform(let name): return p.shaderEffect?.uniforms[name].map { .shader($0) } ?? .number(0)
        case .custom(let key): return p.custom?[key] ?? .number(0)
        case .gradientStartPoint: return .point(p.gradient?.startPoint ?? .zero)
        case .gradientEndPoint: return .point(p.gradient?.endPoint ?? .zero)
        case .gradientColors: return .colors(p.gradient?.colors ?? [])
        case .gradientLocations: return .numbers(p.gradient?.locations ?? [])
        }
    }

    /// A value of the property's kind (its value in default properties).
    var kind: AnimationValue {
        switch base {
        case .position, .boundsOrigin, .anchorPoint, .gradientStartPoint, .gradientEndPoint: return .point(.zero)
        case .positionX, .positionY, .zPosition, .boundsWidth, .boundsHeight, .anchorPointZ, .transformComponent,
             .opacity, .borderWidth, .cornerRadius, .shadowOpacity, .shadowRadius: return .number(0)
        case .bounds, .contentsRect, .contentsCenter: return .rect(.zero)
        case .boundsSize, .shadowOffset: return .size(.zero)
        case .transform, .sublayerTransform: return .transform(.identity)
        case .backgroundColor, .borderColor, .shadowColor: return .color(nil)
        case .contents: return .contents(nil)
        case .gradientColors: return .colors([])
        case .gradientLocations: return .numbers([])
        case .uniform, .effectUniform, .custom: return .number(0)   // (the value's own type: `set` converts to it)
        }
    }

    /// Sets the property in `p` to `v` (converted to the property's kind; a value that
    /// cannot be, or is not finite, is ignored: the property keeps what it had).
    func set(_ v: AnimationValue, in p: inout LayerProperties) {
        if case .uniform(let name) = base {
            // Converted to the uniform's type; a uniform the layer lacks is not set.
            guard var style = p.shader, let current = style.uniforms[name],
                  case .shader(let value)? = v.converted(like: .shader(current)), value.isValid else { return }
            style.uniforms[name] = value
            p.shader = style
            return
        }
        if case .effectUniform(let name) = base {
            guard var effect = p.shaderEffect, let current = effect.uniforms[name],
                  case .shader(let value)? = v.converted(like: .shader(current)), value.isValid else { return }
            effect.uniforms[name] = value
            p.shaderEffect = effect
            return
        }
        if case .custom(let key) = base {
            // Converted to the type of the value the layer has; a key it lacks is not set.
            guard let current = p.custom?[key], let value = v.converted(like: current), value.isFinite else { return }
            p.custom?[key] = value
            return
        }
        // A number for a property of numbers (most animations: opacity, a transform's
        // rotation or scale) is set without a conversion or a switch over (property, value)
        // pairs, which copied the value and the property into a tuple first.
        if case .number(let x) = v, setNumber(x, in: &p) { return }
        guard let v = v.converted(like: kind), v.isFinite else { return }
        switch (base, v) {
        case (.position, .point(let x)): p.position = x
        case (.bounds, .rect(let x)): p.bounds = x
        case (.boundsOrigin, .point(let x)): p.bounds.origin = x
        case (.boundsSize, .size(let x)): p.bounds.size = x
        case (.anchorPoint, .point(let x)): p.anchorPoint = x
        case (.transform, .transform(let x)): p.transform = x
        case (.sublayerTransform, .transform(let x)): p.sublayerTransform = x
        case (.backgroundColor, .color(let x)): p.backgroundColor = x
        case (.borderColor, .color(let x)): p.borderColor = x ?? .clear
        case (.contentsRect, .rect(let x)): p.contentsRect = x
        case (.contentsCenter, .rect(let x)): p.contentsCenter = x
        case (.shadowOffset, .size(let x)): p.shadowOffset = x
        case (.shadowColor, .color(let x)): p.shadowColor = x ?? .clear
        case (.gradientStartPoint, .point(let x)): if var g = p.gradient { g.startPoint = x; p.gradient = g }
        case (.gradientEndPoint, .point(let x)): if var g = p.gradient { g.endPoint = x; p.gradient = g }
        case (.gradientColors, .colors(let x)):
            // (A count that changes spreads the stops evenly, as the layer does.)
            if var g = p.gradient, !x.isEmpty {
                if x.count != g.colors.count { g.locations = GradientStyle.stops(nil, count: x.count) }
                g.colors = x
                p.gradient = g
            }
        case (.gradientLocations, .numbers(let x)):
            if var g = p.gradient { g.locations = GradientStyle.stops(x, count: g.colors.count); p.gradient = g }
        default: break
        }
    }

    /// Sets a property whose values are numbers to `x` (a non-finite `x` is ignored);
    /// false for a property of another kind (`set` converts the number to it).
    private func setNumber(_ x: Double, in p: inout LayerProperties) -> Bool {
        // (`set` has handled uniforms and custom keys, whose kind is a number too.)
        guard case .number = kind else { return false }
        guard x.isFinite else { return true }
        switch base {
        case .positionX: p.position.x = x
        case .positionY: p.position.y = x
        case .zPosition: p.zPosition = x
        case .boundsWidth: p.bounds.size.width = x
        case .boundsHeight: p.bounds.size.height = x
        case .anchorPointZ: p.anchorPointZ = x
        case .transformComponent(let sub, let component):
            if sub {
                p.sublayerTransform = p.sublayerTransform.setting(x, for: component)
            } else {
                p.transform = p.transform.setting(x, for: component)
            }
        case .opacity: p.opacity = min(1, max(0, x))
        case .borderWidth: p.borderWidth = max(0, x)
        case .cornerRadius: p.cornerRadius = max(0, x)
        case .shadowOpacity: p.shadowOpacity = min(1, max(0, x))
        case .shadowRadius: p.shadowRadius = max(0, x)
        default: return false
        }
        return true
    }
}
