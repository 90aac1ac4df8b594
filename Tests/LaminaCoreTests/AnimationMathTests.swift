import Foundation
import LaminaGeometry
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues

// MARK: - Helpers

private func maxError(_ a: Transform3D, _ b: Transform3D) -> Double {
    zip(a.values, b.values).map { abs($0 - $1) }.max() ?? .infinity
}

private func rotation(_ degrees: Double, _ x: Double, _ y: Double, _ z: Double) -> Transform3D {
    Transform3D(rotationAngle: degrees * .pi / 180, x: x, y: y, z: z)
}

private func skew(xy: Double = 0, xz: Double = 0, yz: Double = 0) -> Transform3D {
    var m = Transform3D.identity
    m.m21 = xy; m.m31 = xz; m.m32 = yz
    return m
}

private func perspective(_ d: Double) -> Transform3D {
    var m = Transform3D.identity
    m.m34 = -1 / d
    return m
}

/// Concatenation in order: the first applies first.
private func chain(_ ms: Transform3D...) -> Transform3D {
    ms.reduce(.identity) { $0.concatenating($1) }
}

// MARK: - Transform interpolation

@Suite("Transform decomposition and interpolation")
struct TransformInterpolationTests {
    static let samples: [(String, Transform3D)] = [
        ("identity", .identity),
        ("translation", Transform3D(translationX: 10, y: -20, z: 30)),
        ("rotation z", rotation(30, 0, 0, 1)),
        ("rotation 180 about x", rotation(180, 1, 0, 0)),
        ("rotation 180 about (1,1,0)", rotation(180, 1, 1, 0)),
        ("rotation 179.9 about (1,2,3)", rotation(179.9, 1, 2, 3)),
        ("scale", Transform3D(scaleX: 2, y: 0.5, z: 3)),
        ("mirror", Transform3D(scaleX: -1, y: 1, z: 1)),
        ("T·R·S·K·P", chain(Transform3D(scaleX: 2, y: 3, z: 0.5), skew(xy: 0.3, xz: -0.2, yz: 0.1),
                            rotation(40, 1, 2, 3), Transform3D(translationX: 100, y: 50, z: -25), perspective(500))),
        ("rotation then non-uniform scale (a shear)", chain(rotation(30, 0, 0, 1), Transform3D(scaleX: 3, y: 1))),
        ("perspective first, then the rest", chain(perspective(800), rotation(60, 0, 1, 0), Transform3D(translationX: 5, y: 6, z: 7))),
        ("layer about its anchor", Transform3D(translationX: -50, y: -40)
            .concatenating(chain(rotation(-75, 1, 0, 0), perspective(400)))
            .concatenating(Transform3D(translationX: 50, y: 40))),
        ("general", Transform3D([0.9, 0.2, -0.3, 0.001, -0.1, 1.4, 0.25, -0.002, 0.3, -0.2, 0.8, 0.0015, 12, -7, 3, 1.2])),
    ]

    @Test("decompose → recompose round-trips (max element error < 1e-9)", arguments: 0..<samples.count)
    func roundTrip(_ index: Int) throws {
        let (name, m) = Self.samples[index]
        let d = try #require(m.decomposed(), "\(name)")
        let back = d.recomposed()
        // recomposed() is normalised by m44; compare with m / m44.
        let scaled = Transform3D(m.values.map { $0 / m.m44 })
        #expect(maxError(back, scaled) < 1e-9, "\(name): \(back) vs \(scaled)")
    }

    @Test("the parts of S·K·R·T·P read back as given")
    func parts() throws {
        let m = chain(Transform3D(scaleX: 2, y: 3, z: 0.5), skew(xy: 0.3, xz: -0.2, yz: 0.1),
                      rotation(40, 0, 0, 1), Transform3D(translationX: 100, y: 50, z: 0), perspective(500))
        let d = try #require(m.decomposed())
        let expected: [Double] = [2, 3, 0.5, 0.3, -0.2, 0.1, 100, 50, 0]
        let got = [d.scaleX, d.scaleY, d.scaleZ, d.skewXY, d.skewXZ, d.skewYZ, d.translationX, d.translationY, d.translationZ]
        for (g, e) in zip(got, expected) { #expect(abs(g - e) < 1e-12, "\(got)") }
        #expect(abs(d.quaternionZ - sin(20 * Double.pi / 180)) < 1e-12)
        #expect(abs(d.quaternionW - cos(20 * Double.pi / 180)) < 1e-12)
        #expect(abs(d.quaternionX) < 1e-15 && abs(d.quaternionY) < 1e-15)
        // Perspective after translation: P = (0, 0, -1/500, 1) as a fourth column.
        #expect(abs(d.perspectiveZ + 1.0 / 500) < 1e-15 && abs(d.perspectiveW - 1) < 1e-12)
        #expect(DecomposedTransform.identity.recomposed() == .identity)
        #expect(Transform3D.identity.decomposed() == .identity)
        // Huge but finite parts still decompose.
        #expect(Transform3D(translationX: 1e308, y: 1e308, z: 1e308).decomposed()?.translationY == 1e308)
    }

    @Test("undecomposable matrices: nil; interpolation switches at 0.5")
    func undecomposable() {
        let flat = Transform3D(scaleX: 0, y: 1)
        var noW = Transform3D.identity; noW.m44 = 0
        var nan = Transform3D.identity; nan.m12 = .nan
        #expect(flat.decomposed() == nil)
        #expect(noW.decomposed() == nil)
        #expect(nan.decomposed() == nil)
        let to = Transform3D(translationX: 10, y: 0)
        #expect(Transform3D.interpolate(from: flat, to: to, fraction: 0.49) == flat)
        #expect(Transform3D.interpolate(from: flat, to: to, fraction: 0.5) == to)
        #expect(Transform3D.interpolate(from: to, to: flat, fraction: 0.2) == to)
        #expect(Transform3D.interpolate(from: to, to: flat, fraction: 0.7) == flat)
        #expect(Transform3D.interpolate(from: flat, to: to, fraction: .nan) == flat)
    }

    @Test("rotation about z from 0 to 350° goes the short way: -5° at 0.5")
    func shortWay() {
        let to = rotation(350, 0, 0, 1)
        let mid = Transform3D.interpolate(from: .identity, to: to, fraction: 0.5)
        #expect(maxError(mid, rotation(-5, 0, 0, 1)) < 1e-12, "\(mid)")
        let quarter = Transform3D.interpolate(from: .identity, to: to, fraction: 0.25)
        #expect(maxError(quarter, rotation(-2.5, 0, 0, 1)) < 1e-12)
        // 170° → -170° (= 190°) also passes through 180°, not 0°.
        let m = Transform3D.interpolate(from: rotation(170, 0, 0, 1), to: rotation(-170, 0, 0, 1), fraction: 0.5)
        #expect(maxError(m, rotation(180, 0, 0, 1)) < 1e-12)
    }

    @Test("fractions outside 0…1 extrapolate (rotation continues, translation linear)")
    func extrapolation() {
        let r = Transform3D.interpolate(from: .identity, to: rotation(90, 0, 0, 1), fraction: 2)
        #expect(maxError(r, rotation(180, 0, 0, 1)) < 1e-12, "\(r)")
        let back = Transform3D.interpolate(from: .identity, to: rotation(40, 1, 1, 0), fraction: -0.5)
        #expect(maxError(back, rotation(-20, 1, 1, 0)) < 1e-12)
        let t = Transform3D.interpolate(from: .identity, to: Transform3D(translationX: 100, y: -50, z: 10), fraction: 1.5)
        #expect(maxError(t, Transform3D(translationX: 150, y: -75, z: 15)) < 1e-12)
    }

    @Test("identity → perspective m34 = -1/500 at 0.5: m34 = -1/1000 and no shear")
    func perspectiveHalf() {
        let mid = Transform3D.interpolate(from: .identity, to: perspective(500), fraction: 0.5)
        #expect(abs(mid.m34 + 1.0 / 1000) < 1e-15)
        #expect(mid.m12 == 0 && mid.m21 == 0)
        #expect(mid.m11 == 1 && mid.m22 == 1 && mid.m33 == 1 && mid.m44 == 1)
    }

    @Test("scale 1 → 3 at 0.5 is 2; translation interpolates linearly")
    func scaleAndTranslation() {
        let s = Transform3D.interpolate(from: .identity, to: Transform3D(scaleX: 3, y: 3), fraction: 0.5)
        #expect(maxError(s, Transform3D(scaleX: 2, y: 2)) < 1e-12, "\(s)")
        let to = Transform3D(translationX: 100, y: -50, z: 10)
        for f in stride(from: 0.0, through: 1, by: 0.125) {
            let t = Transform3D.interpolate(from: .identity, to: to, fraction: f)
            #expect(maxError(t, Transform3D(translationX: 100 * f, y: -50 * f, z: 10 * f)) < 1e-12)
        }
        // Translation combined with rotation: the translation row still moves in a straight line.
        let a = chain(rotation(10, 0, 0, 1), Transform3D(translationX: 0, y: 0))
        let b = chain(rotation(80, 0, 0, 1), Transform3D(translationX: 40, y: 20))
        let m = Transform3D.interpolate(from: a, to: b, fraction: 0.5)
        #expect(maxError(m, chain(rotation(45, 0, 0, 1), Transform3D(translationX: 20, y: 10))) < 1e-12)
    }

    @Test("interpolating a general matrix with itself gives it back; ends are exact")
    func selfInterpolation() {
        for (name, m) in Self.samples {
            let scaled = Transform3D(m.values.map { $0 / m.m44 })
            #expect(maxError(Transform3D.interpolate(from: m, to: m, fraction: 0.3), scaled) < 1e-9, "\(name)")
            #expect(Transform3D.interpolate(from: m, to: .identity, fraction: 0) == m)
            #expect(Transform3D.interpolate(from: .identity, to: m, fraction: 1) == m)
        }
    }

    @Test("rotationAngles: z of a pure z rotation is its angle in (-π, π]; Euler order x, then y, then z")
    func eulerAngles() {
        for degrees in stride(from: -175.0, through: 180, by: 5) {
            let a = degrees * .pi / 180
            let angles = Transform3D(rotationAngle: a, x: 0, y: 0, z: 1).rotationAngles
            #expect(abs(angles.z - a) < 1e-12, "\(degrees)")
            #expect(abs(angles.x) < 1e-12 && abs(angles.y) < 1e-12)
            // Scale and translation do not disturb it.
            let scaled = chain(Transform3D(scaleX: 2, y: 3), Transform3D(rotationAngle: a, x: 0, y: 0, z: 1),
                               Transform3D(translationX: 7, y: 8))
            #expect(abs(scaled.rotationAngles.z - a) < 1e-12)
        }
        let combined = chain(Transform3D(rotationAngle: 0.3, x: 1, y: 0, z: 0), Transform3D(rotationAngle: -0.2, x: 0, y: 1, z: 0),
                             Transform3D(rotationAngle: 1.1, x: 0, y: 0, z: 1))
        let e = combined.rotationAngles
        #expect(abs(e.x - 0.3) < 1e-12 && abs(e.y + 0.2) < 1e-12 && abs(e.z - 1.1) < 1e-12, "\(e)")
        // Gimbal lock: y = π/2.
        let locked = chain(Transform3D(rotationAngle: .pi / 2, x: 0, y: 1, z: 0), Transform3D(rotationAngle: 0.4, x: 0, y: 0, z: 1))
        let g = locked.rotationAngles
        #expect(abs(g.y - .pi / 2) < 1e-7 && abs(g.z - 0.4) < 1e-7, "\(g)")
    }

    @Test("value(forKeyPath:) and setting(_:forKeyPath:) round-trip, keeping the other components")
    func keyPaths() throws {
        let base = chain(Transform3D(scaleX: 2, y: 3, z: 1.5), rotation(30, 0, 0, 1), Transform3D(translationX: 5, y: 6, z: 7))
        #expect(abs(try #require(base.value(forKeyPath: "scale.x")) - 2) < 1e-12)
        #expect(abs(try #require(base.value(forKeyPath: "scale")) - 6.5 / 3) < 1e-12)
        #expect(abs(try #require(base.value(forKeyPath: "rotation")) - .pi / 6) < 1e-12)
        #expect(abs(try #require(base.value(forKeyPath: "rotation.z")) - .pi / 6) < 1e-12)
        #expect(abs(try #require(base.value(forKeyPath: "translation.z")) - 7) < 1e-12)
        #expect(abs(base.translationXY.x - 5) < 1e-12 && abs(base.translationXY.y - 6) < 1e-12)

        let paths = ["rotation.x", "rotation.y", "rotation.z", "rotation", "scale.x", "scale.y", "scale.z", "scale",
                     "translation.x", "translation.y", "translation.z"]
        for path in paths {
            let v = path.hasPrefix("rotation") ? 0.7 : (path.hasPrefix("scale") ? 4.0 : -12.0)
            let set = try #require(base.setting(v, forKeyPath: path))
            #expect(abs(try #require(set.value(forKeyPath: path)) - v) < 1e-12, "\(path)")
            // The untouched components are kept.
            for other in paths where !Self.related(path, other) {
                let was = try #require(base.value(forKeyPath: other)), now = try #require(set.value(forKeyPath: other))
                #expect(abs(was - now) < 1e-12, "setting \(path) changed \(other): \(was) → \(now)")
            }
        }
        let uniform = try #require(base.setting(5, forKeyPath: "scale"))
        let d = try #require(uniform.decomposed())
        #expect(abs(d.scaleX - 5) < 1e-12 && abs(d.scaleY - 5) < 1e-12 && abs(d.scaleZ - 5) < 1e-12)

        // Setting the Euler angles one by one builds x-then-y-then-z.
        let built = try #require(Transform3D.identity.setting(0.3, forKeyPath: "rotation.x")?
            .setting(0.2, forKeyPath: "rotation.y")?.setting(0.1, forKeyPath: "rotation.z"))
        let expected = chain(Transform3D(rotationAngle: 0.3, x: 1, y: 0, z: 0), Transform3D(rotationAngle: 0.2, x: 0, y: 1, z: 0),
                             Transform3D(rotationAngle: 0.1, x: 0, y: 0, z: 1))
        #expect(maxError(built, expected) < 1e-12)
        #expect(maxError(try #require(Transform3D.identity.setting(.pi / 2, forKeyPath: "rotation")), rotation(90, 0, 0, 1)) < 1e-14)

        #expect(base.value(forKeyPath: "rotation.w") == nil)
        #expect(base.value(forKeyPath: "translation") == nil)
        #expect(base.setting(1, forKeyPath: "opacity") == nil)
    }

    @Test("undecomposable matrices: key paths still read translation and scale; setting starts from identity")
    func keyPathsUndecomposable() throws {
        let flat = chain(Transform3D(scaleX: 0, y: 2), Transform3D(translationX: 3, y: 4))
        #expect(flat.value(forKeyPath: "scale.x") == 0)
        #expect(flat.value(forKeyPath: "scale.y") == 2)
        #expect(flat.value(forKeyPath: "translation.y") == 4)
        #expect(flat.translationXY == (3, 4))
        #expect(flat.rotationAngles == (0, 0, 0))
        #expect(flat.setting(2, forKeyPath: "scale.x") == Transform3D(scaleX: 2, y: 1))
    }

    /// Whether setting `a` may legitimately change `b` ("scale" is the average of scale.x/y/z…).
    static func related(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        let rotationZ: Set = ["rotation", "rotation.z"]
        if rotationZ.contains(a) && rotationZ.contains(b) { return true }
        if a.hasPrefix("scale") && b.hasPrefix("scale") && (a == "scale" || b == "scale") { return true }
        return false
    }
}

// MARK: - Timing functions

@Suite("Timing functions")
struct TimingFunctionTests {
    /// y for x by dense bisection on the Bernstein form (independent of the solver under test).
    static func reference(_ f: TimingFunction, _ x: Double) -> Double {
        func bezier(_ p1: Double, _ p2: Double, _ t: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if bezier(f.c1x, f.c2x, mid) < x { lo = mid } else { hi = mid }
        }
        return bezier(f.c1y, f.c2y, (lo + hi) / 2)
    }

    static let functions: [(String, TimingFunction)] = [
        ("linear", .linear), ("easeIn", .easeIn), ("easeOut", .easeOut), ("easeInEaseOut", .easeInEaseOut),
        ("default", .default), ("overshoot", TimingFunction(controlPoints: 0.68, -0.55, 0.27, 1.55)),
        ("steep", TimingFunction(controlPoints: 0.9, 0, 0.1, 1)),
    ]

    @Test("matches a dense-bisection solution within 1e-6 at x = 0, 0.1, …, 1 (and finer)", arguments: 0..<functions.count)
    func againstReference(_ index: Int) {
        let (name, f) = Self.functions[index]
        for i in 0...100 {
            let x = Double(i) / 100
            let y = f.value(at: x), r = Self.reference(f, x)
            #expect(abs(y - r) < 1e-6, "\(name) at \(x): \(y) vs \(r)")
        }
        #expect(f.value(at: 0) == 0)
        #expect(f.value(at: 1) == 1)
    }

    @Test("a vertical tangent inside (control points (1,0), (0,1)): x(t) of the returned y is within 1e-7 of x")
    func verticalTangent() {
        // Near x = 0.5, y ∝ ∛(x - 0.5): comparing y would measure the reference's own error, so
        // invert y(t) = 3t² - 2t³ (increasing) and check the residual in x instead.
        let f = TimingFunction(controlPoints: 1, 0, 0, 1)
        for i in 0...100 {
            let x = Double(i) / 100, y = f.value(at: x)
            var lo = 0.0, hi = 1.0
            for _ in 0..<200 {
                let mid = (lo + hi) / 2
                if 3 * mid * mid - 2 * mid * mid * mid < y { lo = mid } else { hi = mid }
            }
            let t = (lo + hi) / 2
            let xt = 3 * (1 - t) * (1 - t) * t + t * t * t
            #expect(abs(xt - x) < 1e-7, "at \(x): y = \(y), x(t) = \(xt)")
        }
        #expect(f.value(at: 0.5) == 0.5)
        #expect(f.slope(at: 0.5) == .infinity)
    }

    @Test("a coarse epsilon (1/(200·duration)) stays close")
    func coarseEpsilon() {
        let eps = 1 / (200 * 0.25)
        for i in 1..<20 {
            let x = Double(i) / 20
            #expect(abs(TimingFunction.easeInEaseOut.value(at: x, epsilon: eps) - Self.reference(.easeInEaseOut, x)) < 2 * eps)
        }
    }

    @Test("linear returns x, also outside 0…1")
    func linear() {
        for x in [-0.5, 0, 0.123456789, 0.5, 0.9, 1, 2] {
            #expect(TimingFunction.linear.value(at: x) == x)
            #expect(TimingFunction.linear.slope(at: x) == 1)
        }
    }

    @Test("control points: x clamped to 0…1, y kept; named values; getControlPoint")
    func controlPoints() {
        let f = TimingFunction(controlPoints: -0.5, -2, 1.5, 3)
        #expect(f.c1x == 0 && f.c1y == -2 && f.c2x == 1 && f.c2y == 3)
        let nan = TimingFunction(controlPoints: .nan, .infinity, .nan, .nan)
        #expect(nan == .linear)
        #expect(TimingFunction.easeInEaseOut.controlPoint(at: 0) == (0, 0))
        #expect(TimingFunction.easeInEaseOut.controlPoint(at: 1) == (0.42, 0))
        #expect(TimingFunction.easeInEaseOut.controlPoint(at: 2) == (0.58, 1))
        #expect(TimingFunction.easeInEaseOut.controlPoint(at: 3) == (1, 1))
        #expect(TimingFunction.default == TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1))
        #expect(TimingFunction.easeIn.description == "easeIn")
        #expect(TimingFunction(controlPoints: 0.1, 0.2, 0.3, 0.4).description == "TimingFunction(0.1, 0.2, 0.3, 0.4)")
    }

    @Test("outside 0…1: extrapolated along the end tangents (flat where vertical)")
    func extrapolation() {
        // easeOut starts towards (0.58, 1) (its first control point is the origin) and ends flat.
        #expect(abs(TimingFunction.easeOut.value(at: -0.1) - (-0.1 / 0.58)) < 1e-15)
        #expect(TimingFunction.easeOut.value(at: 1.5) == 1)
        // easeIn ends towards (1,1) from (0.42, 0).
        #expect(abs(TimingFunction.easeIn.value(at: 1.1) - (1 + 0.1 / 0.58)) < 1e-12)
        #expect(TimingFunction.easeIn.value(at: -1) == 0)
        // default: starts along (0.25, 0.1).
        #expect(abs(TimingFunction.default.value(at: -0.5) - (-0.2)) < 1e-15)
        // A vertical start tangent: flat extension.
        #expect(TimingFunction(controlPoints: 0, 0.5, 1, 1).value(at: -1) == 0)
        #expect(TimingFunction.easeIn.value(at: .nan).isNaN)
    }

    @Test("slope matches finite differences inside; end slopes are the tangents")
    func slope() {
        for (name, f) in Self.functions {
            for i in 1..<20 {
                let x = Double(i) / 20, h = 1e-5
                let numeric = (Self.reference(f, x + h) - Self.reference(f, x - h)) / (2 * h)
                #expect(abs(f.slope(at: x) - numeric) < 1e-4 * max(1, abs(numeric)), "\(name) at \(x)")
            }
        }
        #expect(abs(TimingFunction.default.slope(at: 0) - 0.4) < 1e-15)
        #expect(TimingFunction.easeOut.slope(at: 1) == 0)
        #expect(TimingFunction.easeOut.slope(at: 2) == 0)
        #expect(TimingFunction(controlPoints: 0, 0.5, 1, 1).slope(at: 0) == .infinity)
        #expect(TimingFunction(controlPoints: 0, 0.5, 1, 1).slope(at: -1) == 0)
    }
}

// MARK: - Springs

@Suite("Spring solver")
struct SpringSolverTests {
    /// RK4 integration of m·x'' = -k(x - 1) - c·x' (independent of the closed forms).
    static func integrate(_ s: SpringSolver, until end: Double, dt: Double, sample: (Double, Double, Double) -> Void) {
        var x = 0.0, v = s.initialVelocity, t = 0.0
        func acc(_ x: Double, _ v: Double) -> Double { (-s.stiffness * (x - 1) - s.damping * v) / s.mass }
        var step = 0
        while t < end {
            if step % 100 == 0 { sample(t, x, v) }
            let k1x = v, k1v = acc(x, v)
            let k2x = v + dt / 2 * k1v, k2v = acc(x + dt / 2 * k1x, v + dt / 2 * k1v)
            let k3x = v + dt / 2 * k2v, k3v = acc(x + dt / 2 * k2x, v + dt / 2 * k2v)
            let k4x = v + dt * k3v, k4v = acc(x + dt * k3x, v + dt * k3v)
            x += dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
            step += 1
            t = Double(step) * dt
        }
    }

    static let springs: [(String, SpringSolver)] = [
        ("default (under)", .default),
        ("under, initial velocity", SpringSolver(mass: 2, stiffness: 300, damping: 5, initialVelocity: -3)),
        ("under, nearly critical", SpringSolver(mass: 1, stiffness: 100, damping: 19.9999, initialVelocity: 1)),
        ("critical", SpringSolver(mass: 1, stiffness: 100, damping: 20, initialVelocity: 5)),
        ("over, nearly critical", SpringSolver(mass: 1, stiffness: 100, damping: 20.0001, initialVelocity: -2)),
        ("over", SpringSolver(mass: 1, stiffness: 100, damping: 50, initialVelocity: 0)),
        ("over, fast start", SpringSolver(mass: 0.5, stiffness: 40, damping: 30, initialVelocity: 20)),
        ("undamped", SpringSolver(mass: 1, stiffness: 100, damping: 0, initialVelocity: 0)),
    ]

    @Test("closed forms match an RK4 integration (position and velocity)", arguments: 0..<springs.count)
    func matchesIntegration(_ index: Int) {
        let (name, s) = Self.springs[index]
        var worst = 0.0
        Self.integrate(s, until: 3, dt: 1e-5) { t, x, v in
            worst = max(worst, abs(s.value(at: t) - x), abs(s.velocity(at: t) - v) / 10)
        }
        #expect(worst < 1e-8, "\(name): \(worst)")
        #expect(s.value(at: 0) == 0)
        #expect(s.velocity(at: 0) == s.initialVelocity)
        #expect(abs(s.value(at: 100) - 1) < (name == "undamped" ? 2 : 1e-9))
    }

    @Test("settlingDuration: at rest from then on, and not shortly before", arguments: 0..<(springs.count - 1))
    func settling(_ index: Int) {
        let (name, s) = Self.springs[index]
        let w0 = (s.stiffness / s.mass).squareRoot()
        func energy(_ t: Double) -> Double {
            let u = s.value(at: t) - 1, v = s.velocity(at: t) / w0
            return (u * u + v * v).squareRoot()
        }
        let T = s.settlingDuration
        #expect(T > 0 && T < 1000, "\(name): \(T)")
        for i in 0...2000 {
            let t = T + Double(i) * 0.005
            #expect(abs(s.value(at: t) - 1) < 0.001 && energy(t) < 0.001, "\(name) at \(t)")
        }
        #expect(energy(T * (1 - 1e-6)) >= 0.001, "\(name)")
        // Tight in displacement too: |x - 1| reaches 0.001 within the last 10 %.
        let reached = (0...1000).contains { i in abs(s.value(at: T * (0.9 + 0.1 * Double(i) / 1000)) - 1) >= 0.001 }
        #expect(reached, "\(name): T = \(T)")
    }

    @Test("default spring (mass 1, stiffness 100, damping 10) settles in about 1.36 s")
    func defaultSettling() {
        let T = SpringSolver.default.settlingDuration
        print("SpringSolver.default.settlingDuration = \(T)")
        #expect(abs(T - 1.357) < 0.01, "\(T)")
        // Apple's documentation: damping 5 ≈ 2.85 s, damping 15 just over 1 s.
        let soft = SpringSolver(mass: 1, stiffness: 100, damping: 5, initialVelocity: 0).settlingDuration
        let firm = SpringSolver(mass: 1, stiffness: 100, damping: 15, initialVelocity: 0).settlingDuration
        print("damping 5: \(soft), damping 15: \(firm)")
        #expect(soft > 2.6 && soft < 2.9)
        #expect(firm > 0.8 && firm < 1.1)
    }

    @Test("invalid input falls back to the defaults, per parameter; never NaN; undamped caps at 1000 s")
    func invalidInput() {
        let s = SpringSolver(mass: 0, stiffness: -1, damping: .nan, initialVelocity: .infinity)
        #expect(s == .default)
        let partly = SpringSolver(mass: -2, stiffness: 200, damping: -1, initialVelocity: 0.5)
        #expect(partly.mass == 1 && partly.stiffness == 200 && partly.damping == 10 && partly.initialVelocity == 0.5)
        let extreme = SpringSolver(mass: 1e-300, stiffness: 1e300, damping: 1e300, initialVelocity: 0)
        #expect(extreme == .default)
        #expect(SpringSolver(mass: 1, stiffness: 100, damping: 0, initialVelocity: 0).settlingDuration == 1000)
        let sluggish = SpringSolver(mass: 1, stiffness: 1e-6, damping: 1e3, initialVelocity: 0)
        #expect(sluggish.settlingDuration == 1000)
        for spring in [s, partly, sluggish, SpringSolver(mass: 1, stiffness: 1e8, damping: 1, initialVelocity: 1e6)] {
            for t in [-1.0, 0, 1e-9, 0.5, 10, 1e6, .infinity, .nan] {
                #expect(spring.value(at: t).isFinite && spring.velocity(at: t).isFinite, "\(spring) at \(t)")
            }
        }
    }
}

// MARK: - Keyframes

@Suite("Keyframe calculation modes")
struct KeyframeMathTests {
    static func eval(_ values: [[Double]], _ mode: CalculationMode, keyTimes: [Double]? = nil,
                     timingFunctions: [TimingFunction]? = nil, tension: [Double]? = nil,
                     continuity: [Double]? = nil, bias: [Double]? = nil, _ p: Double) -> [Double] {
        KeyframeMath.evaluate(values: values, keyTimes: keyTimes, timingFunctions: timingFunctions, mode: mode,
                              tension: tension, continuity: continuity, bias: bias, progress: p)
    }

    static func close(_ a: [Double], _ b: [Double], _ tolerance: Double = 1e-12) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test("linear: the values at their key times, straight lines between, extrapolation outside")
    func linear() {
        let v: [[Double]] = [[0, 0], [10, 20], [30, -20]]
        let k = [0, 0.2, 1.0]
        #expect(Self.eval(v, .linear, keyTimes: k, 0) == [0, 0])
        #expect(Self.eval(v, .linear, keyTimes: k, 0.2) == [10, 20])
        #expect(Self.eval(v, .linear, keyTimes: k, 1) == [30, -20])
        #expect(Self.close(Self.eval(v, .linear, keyTimes: k, 0.1), [5, 10]))
        #expect(Self.close(Self.eval(v, .linear, keyTimes: k, 0.6), [20, 0]))
        // Evenly spaced without key times.
        #expect(Self.close(Self.eval(v, .linear, 0.75), [20, 0]))
        #expect(Self.close(Self.eval([[0], [10]], .linear, 1.1), [11]))
        #expect(Self.close(Self.eval([[0], [10]], .linear, -0.1), [-1]))
        // Equal neighbouring key times: a jump.
        let jump = [0, 0.5, 0.5, 1.0]
        let w: [[Double]] = [[0], [1], [5], [6]]
        #expect(Self.close(Self.eval(w, .linear, keyTimes: jump, 0.4999999), [1], 1e-6))
        #expect(Self.eval(w, .linear, keyTimes: jump, 0.5) == [5])
    }

    @Test("discrete: steps with n or n + 1 key times, and i/n without")
    func discrete() {
        let v: [[Double]] = [[1], [2], [3]]
        let n = [0, 0.5, 1.0]
        #expect(Self.eval(v, .discrete, keyTimes: n, 0) == [1])
        #expect(Self.eval(v, .discrete, keyTimes: n, 0.49) == [1])
        #expect(Self.eval(v, .discrete, keyTimes: n, 0.5) == [2])
        #expect(Self.eval(v, .discrete, keyTimes: n, 0.99) == [2])
        #expect(Self.eval(v, .discrete, keyTimes: n, 1) == [3])
        let n1 = [0, 0.2, 0.3, 1.0]
        #expect(Self.eval(v, .discrete, keyTimes: n1, 0.1) == [1])
        #expect(Self.eval(v, .discrete, keyTimes: n1, 0.25) == [2])
        #expect(Self.eval(v, .discrete, keyTimes: n1, 0.3) == [3])
        #expect(Self.eval(v, .discrete, keyTimes: n1, 1) == [3])
        // Without key times: each value for a third.
        #expect(Self.eval(v, .discrete, 0.33) == [1])
        #expect(Self.eval(v, .discrete, 0.34) == [2])
        #expect(Self.eval(v, .discrete, 0.67) == [3])
        #expect(Self.eval(v, .discrete, -1) == [1])
        #expect(Self.eval(v, .discrete, 2) == [3])
        // Timing functions do not apply.
        #expect(Self.eval(v, .discrete, keyTimes: n, timingFunctions: [.easeIn, .easeIn], 0.6) == [2])
    }

    @Test("paced: constant speed along (0,0) → (1,0) → (1,3)")
    func paced() {
        let v: [[Double]] = [[0, 0], [1, 0], [1, 3]]
        #expect(Self.close(Self.eval(v, .paced, 0.25), [1, 0]))
        #expect(Self.close(Self.eval(v, .paced, 0.5), [1, 1]))
        var previous = Self.eval(v, .paced, 0)
        for i in 1...100 {
            let p = Self.eval(v, .paced, Double(i) / 100)
            let step = ((p[0] - previous[0]) * (p[0] - previous[0]) + (p[1] - previous[1]) * (p[1] - previous[1])).squareRoot()
            #expect(abs(step - 0.04) < 1e-12, "at \(i)")
            previous = p
        }
        // Key times and timing functions are ignored.
        #expect(Self.close(Self.eval(v, .paced, keyTimes: [0, 0.9, 1], timingFunctions: [.easeIn, .easeIn], 0.25), [1, 0]))
        // No length at all: evenly spaced (and the value).
        #expect(Self.eval([[2], [2], [2]], .paced, 0.7) == [2])
        #expect(PacedTimes.of([[2], [2], [2]]) == [0, 0.5, 1])
    }

    @Test("cubic: passes through each keyframe at its key time; C1 at interior keyframes (Catmull-Rom)")
    func cubicThroughKeys() {
        let v: [[Double]] = [[0, 5], [3, -1], [4, 8], [-2, 2], [7, 7]]
        let k = [0, 0.1, 0.45, 0.6, 1.0]
        for (value, time) in zip(v, k) {
            #expect(Self.close(Self.eval(v, .cubic, keyTimes: k, time), value), "at \(time)")
        }
        // Velocity (in time) is continuous at the interior keys, also with unequal segment times.
        for time in k.dropFirst().dropLast() {
            let h = 1e-7
            let left = zip(Self.eval(v, .cubic, keyTimes: k, time), Self.eval(v, .cubic, keyTimes: k, time - h)).map { ($0 - $1) / h }
            let right = zip(Self.eval(v, .cubic, keyTimes: k, time + h), Self.eval(v, .cubic, keyTimes: k, time)).map { ($0 - $1) / h }
            #expect(Self.close(left, right, 1e-4 * max(1, left.map(abs).max()!)), "at \(time): \(left) vs \(right)")
        }
    }

    @Test("cubic: Catmull-Rom midpoints; tension 1 gives zero tangents")
    func cubicKnownValues() {
        let v: [[Double]] = [[0], [1], [3], [2]]
        // Middle segment: (-P0 + 9·P1 + 9·P2 - P3) / 16.
        #expect(Self.close(Self.eval(v, .cubic, 0.5), [34.0 / 16]))
        // First segment, the first value doubling as its missing neighbour: (8·P0 + 9·P1 - P2) / 16.
        #expect(Self.close(Self.eval(v, .cubic, 1.0 / 6), [6.0 / 16]))
        // Tension 1: flat tangents, the midpoint is the average.
        #expect(Self.close(Self.eval(v, .cubic, tension: [1, 1, 1, 1], 0.5), [2]))
        // Bias and continuity change the curve but keep the keyframes.
        let biased = Self.eval(v, .cubic, continuity: [0, 0.5, -0.5, 0], bias: [0, 1, 1, 0], 0.5)
        #expect(!Self.close(biased, [34.0 / 16]))
        #expect(Self.close(Self.eval(v, .cubic, continuity: [0, 0.5, -0.5, 0], bias: [0, 1, 1, 0], 2.0 / 3), [3]))
    }

    @Test("cubicPaced: paced key times, through every value")
    func cubicPaced() {
        let v: [[Double]] = [[0, 0], [1, 0], [1, 3]]
        #expect(Self.close(Self.eval(v, .cubicPaced, 0.25), [1, 0]))
        #expect(Self.close(Self.eval(v, .cubicPaced, 1), [1, 3]))
        #expect(Self.close(Self.eval(v, .cubicPaced, keyTimes: [0, 0.9, 1], 0.25), [1, 0]))
    }

    @Test("per-segment timing functions ease the fraction inside their segment")
    func timingFunctions() {
        let v: [[Double]] = [[0], [1], [2]]
        let eased = TimingFunction.easeIn.value(at: 0.5)
        #expect(Self.close(Self.eval(v, .linear, timingFunctions: [.easeIn, .linear], 0.25), [eased]))
        #expect(Self.close(Self.eval(v, .linear, timingFunctions: [.easeIn, .linear], 0.75), [1.5]))
        // A short array: later segments are linear.
        #expect(Self.close(Self.eval(v, .linear, timingFunctions: [.easeIn], 0.75), [1.5]))
        // Cubic: the eased fraction feeds the segment's curve; keyframes are still hit.
        let c = Self.eval(v, .cubic, timingFunctions: [.easeInEaseOut, .easeInEaseOut], 0.25)
        let expected = Self.eval(v, .cubic, 0.5 * TimingFunction.easeInEaseOut.value(at: 0.5))
        #expect(Self.close(c, expected))
        #expect(Self.close(Self.eval(v, .cubic, timingFunctions: [.easeIn, .easeOut], 0.5), [1]))
    }

    @Test("invalid key times fall back to even spacing")
    func invalidKeyTimes() {
        let v: [[Double]] = [[0], [10], [20]]
        for bad: [Double] in [[0, 0.8, 0.5], [0, 0.5], [0.1, 0.5, 1], [0, 0.5, 0.9], [0, .nan, 1], [0, 0.2, 0.5, 1]] {
            #expect(Self.close(Self.eval(v, .linear, keyTimes: bad, 0.25), [5]), "\(bad)")
            #expect(Self.close(Self.eval(v, .cubic, keyTimes: bad, 0.5), [10]), "\(bad)")
        }
        // Discrete with a wrong count: i/3 spacing, 0.5 lies in the second third.
        #expect(Self.eval(v, .discrete, keyTimes: [0, 0.9], 0.5) == [10])
    }

    @Test("a single value returns it; no values give []; unequal lengths are cut to the shortest")
    func degenerate() {
        for mode in CalculationMode.allCases {
            #expect(Self.eval([[4, 5, 6]], mode, 0.3) == [4, 5, 6])
            #expect(Self.eval([], mode, 0.3) == [])
            #expect(Self.eval([[0, 0, 9], [10, 10]], mode, keyTimes: nil, 1) == [10, 10])
            #expect(Self.eval([[0], [10]], mode, .nan) == [0])
        }
    }
}

/// Access to the paced times through the internal helper.
private enum PacedTimes {
    static func of(_ points: [[Double]]) -> [Double] { KeyframeMath.pacedTimes(points) }
}

@Suite("Animation values: paths and lists")
struct AnimationListValueTests {
    static func triangle(_ x: Double) -> Path {
        var p = Path()
        p.move(to: Point(x: 0, y: 0))
        p.addLine(to: Point(x: 10, y: 0))
        p.addQuadCurve(to: Point(x: x, y: 10), control: Point(x: 10, y: 5))
        p.closeSubpath()
        return p
    }

    @Test("paths of the same elements interpolate point by point; others switch half-way; lists by element when the counts agree")
    func interpolation() {
        let a = AnimationValue.path(Self.triangle(0)), b = AnimationValue.path(Self.triangle(10))
        #expect(AnimationValue.interpolate(a, b, 0.25) == .path(Self.triangle(2.5)))
        let e = AnimationValue.path(Path(ellipseIn: Rect(x: 0, y: 0, width: 4, height: 4)))
        #expect(AnimationValue.interpolate(a, e, 0.4) == a && AnimationValue.interpolate(a, e, 0.6) == e)
        #expect(AnimationValue.interpolate(.path(nil), a, 0.7) == a)
        #expect(AnimationValue.interpolate(.numbers([0, 1]), .numbers([1, 0]), 0.25) == .numbers([0.25, 0.75]))
        #expect(AnimationValue.interpolate(.numbers([0, 1]), .numbers([1]), 0.25) == .numbers([0, 1]))
        #expect(AnimationValue.like(b, a.components) == a)
        #expect(Self.triangle(3).withMorphComponents(Self.triangle(7).morphComponents) == Self.triangle(7))
    }
}
