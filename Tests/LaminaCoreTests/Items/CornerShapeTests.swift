import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues

// maskedCorners and cornerCurve (Sources/LaminaGeometry/Corners.swift, Shaders/batch-rrect.frag):
// the rounded-rect items (background, border), the clip, the gradient's shape and the shadow
// follow them. Expected shapes are worked out here from their definitions — a quarter circle
// per rounded corner; for continuous corners the superellipse |u|^n + |v|^n ≤ 1 over 1.528665
// radii of each edge — not through `CornerShape`.
@MainActor
@Suite("Corner shapes: maskedCorners and cornerCurve (pixels)")
struct CornerShapeTests {
    /// Whether the pixel centre (x, y) lies inside `rect` with `radius` on the corners in
    /// `rounded` (named as in `CornerMask`: min x min y = top left), by more than `margin`
    /// points (positive: inside; the caller also asks with a negative margin for outside).
    static func inside(_ x: Int, _ y: Int, rect: Rect, radius: Double, rounded: Set<String>, continuous: Bool = false,
                       margin: Double) -> Bool {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        guard px > rect.minX + margin, px < rect.maxX - margin, py > rect.minY + margin, py < rect.maxY - margin else { return false }
        let name = (px < rect.midX ? "minX" : "maxX") + (py < rect.midY ? "MinY" : "MaxY")
        guard rounded.contains(name) else { return true }
        // Distances from the corner's two edges.
        let dx = px < rect.midX ? px - rect.minX : rect.maxX - px
        let dy = py < rect.midY ? py - rect.minY : rect.maxY - py
        if !continuous {
            guard dx < radius, dy < radius else { return true }
            let cx = radius - dx, cy = radius - dy
            return (cx * cx + cy * cy).squareRoot() < radius - margin
        }
        let e = radius * 1.528665, n = 3.258816
        guard dx < e, dy < e else { return true }
        // Grow or shrink the superellipse by `margin` along both axes (a safe band: its
        // slope is bounded away from the axes' directions only near them; the band is wide).
        let u = (e - dx) / (e - margin), v = (e - dy) / (e - margin)
        return pow(u, n) + pow(v, n) < 1
    }

    /// Every pixel more than 1 point inside the expected shape is `fill`, every pixel more
    /// than 1 point outside is the background (the antialiased band between is not checked).
    static func shapeMismatches(_ image: RGBAImage, rect: Rect, radius: Double, rounded: Set<String>, continuous: Bool = false,
                                fill: RGBAPixel, outside: RGBAPixel = white, tolerance: Int = 0) -> [String] {
        image.mismatches(tolerance: tolerance) { x, y in
            if inside(x, y, rect: rect, radius: radius, rounded: rounded, continuous: continuous, margin: 1) { return fill }
            if !inside(x, y, rect: rect, radius: radius, rounded: rounded, continuous: continuous, margin: -1) { return outside }
            return nil
        }
    }

    @Test("maskedCorners rounds only the corners named; the others stay square (background fill)",
          arguments: [["minXMinY"], ["maxXMinY", "minXMaxY"], ["maxXMaxY", "minXMinY", "maxXMinY"], [String]()])
    func maskedBackground(_ names: [String]) throws {
        let root = rootLayer()
        let l = solid(Rect(x: 40, y: 30, width: 120, height: 100), .blue)
        l.cornerRadius = 30
        l.maskedCorners = Self.mask(names)
        root.addSublayer(l)
        let (image, _) = try render(root)
        let wrong = Self.shapeMismatches(image, rect: l.frame, radius: 30, rounded: Set(names), fill: blue)
        #expect(wrong.isEmpty, "\(names): \(wrong)")
        #expect(image[41, 31] == (names.contains("minXMinY") ? white : blue), "top-left corner pixel")
        #expect(image[158, 128] == (names.contains("maxXMaxY") ? white : blue), "bottom-right corner pixel")
    }

    @Test("continuous corners: the superellipse over 1.53 radii, cut where a circular corner is not, through its diagonal point")
    func continuousBackground() throws {
        // (Wide enough that the corners' reach, 91.7, stays under half the side: else it is
        // clamped there, as the circular radius is.)
        let frame = Rect(x: 5, y: 5, width: 190, height: 190)
        func draw(_ curve: CornerCurve) throws -> RGBAImage {
            let root = rootLayer()
            let l = solid(frame, .blue)
            l.cornerRadius = 60
            l.cornerCurve = curve
            root.addSublayer(l)
            return try render(root).image
        }
        let continuous = try draw(.continuous), circular = try draw(.circular)
        let all: Set<String> = ["minXMinY", "maxXMinY", "minXMaxY", "maxXMaxY"]
        let wrong = Self.shapeMismatches(continuous, rect: frame, radius: 60, rounded: all, continuous: true, fill: blue)
        #expect(wrong.isEmpty, "\(wrong)")
        // 51.5 points along the top edge from the corner, 1.5 in: 0.8 inside the circle of 60
        // (its edge is 0.68 in there), 0.5 outside the continuous corner (2.04 in: it leaves
        // the edge 91.7 from the corner).
        let (c, o) = (circular[5 + 51, 6], continuous[5 + 51, 6])
        #expect(c.b > 200 && c.r < 60, "circular: \(c)")
        #expect(o.r > 200, "continuous: \(o)")
        // The diagonal: the circle's point is 60·(1 − 1/√2) = 17.6 in from both edges; both
        // shapes cover (20, 20) in and leave (15, 15) in.
        #expect(circular[5 + 20, 5 + 20] == blue && continuous[5 + 20, 5 + 20] == blue)
        #expect(circular[5 + 15, 5 + 15] == white && continuous[5 + 15, 5 + 15] == white)
    }

    @Test("the clip of masksToBounds follows maskedCorners and cornerCurve, under rotation too",
          arguments: [false, true])
    func clipFollows(_ rotated: Bool) throws {
        let root = rootLayer()
        let card = Layer()
        card.frame = Rect(x: 40, y: 40, width: 120, height: 120)
        card.cornerRadius = 24
        card.maskedCorners = [.layerMaxXMinYCorner, .layerMinXMaxYCorner]
        card.cornerCurve = .continuous
        card.masksToBounds = true
        if rotated { card.transform = Transform3D(rotationAngle: .pi, x: 0, y: 0, z: 1) }
        card.addSublayer(solid(Rect(x: -50, y: -50, width: 300, height: 300), .green))
        root.addSublayer(card)
        let (image, _) = try render(root)
        // Half a turn takes the top-right corner to the bottom left and back: the same pair.
        let rounded: Set<String> = ["maxXMinY", "minXMaxY"]
        let wrong = Self.shapeMismatches(image, rect: card.frame, radius: 24, rounded: rounded, continuous: true, fill: green)
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(image[41, 41] == green && image[158, 158] == green, "square corners keep their pixels")
        #expect(image[158, 41] == white && image[41, 158] == white, "rounded corners are cut")
    }

    @Test("the clip follows the corners under a quarter turn: max x min y moves to the bottom right")
    func clipQuarterTurn() throws {
        let root = rootLayer()
        let card = Layer()
        card.frame = Rect(x: 40, y: 40, width: 120, height: 120)
        card.cornerRadius = 30
        card.maskedCorners = .layerMaxXMinYCorner
        card.masksToBounds = true
        // A quarter turn clockwise on screen (y down): the top-right corner goes bottom right.
        card.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        card.addSublayer(solid(Rect(x: -50, y: -50, width: 300, height: 300), .green))
        root.addSublayer(card)
        let (image, _) = try render(root)
        let wrong = Self.shapeMismatches(image, rect: card.frame, radius: 30, rounded: ["maxXMaxY"], fill: green)
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("the border follows maskedCorners: a ring with square and rounded corners")
    func borderFollows() throws {
        let root = rootLayer()
        let l = Layer()
        l.frame = Rect(x: 40, y: 40, width: 120, height: 120)
        l.cornerRadius = 30
        l.maskedCorners = [.layerMinXMinYCorner]
        l.borderWidth = 8
        l.borderColor = .red
        root.addSublayer(l)
        let (image, _) = try render(root)
        let outer = Rect(x: 40, y: 40, width: 120, height: 120), inner = Rect(x: 48, y: 48, width: 104, height: 104)
        let wrong = image.mismatches { x, y in
            let inOuter = Self.inside(x, y, rect: outer, radius: 30, rounded: ["minXMinY"], margin: 1)
            let outOuter = !Self.inside(x, y, rect: outer, radius: 30, rounded: ["minXMinY"], margin: -1)
            let inInner = Self.inside(x, y, rect: inner, radius: 22, rounded: ["minXMinY"], margin: 1)
            let outInner = !Self.inside(x, y, rect: inner, radius: 22, rounded: ["minXMinY"], margin: -1)
            if outOuter || inInner { return white }
            if inOuter && outInner { return red }
            return nil
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(image[158, 158] == red, "the square corner's ring reaches the corner pixel")
    }

    @Test("a gradient fills the masked, continuous shape without masksToBounds")
    func gradientFollows() throws {
        let root = rootLayer()
        let g = GradientLayer()
        g.frame = Rect(x: 40, y: 40, width: 120, height: 120)
        g.colors = [.blue, .blue]
        g.cornerRadius = 30
        g.maskedCorners = [.layerMinXMaxYCorner, .layerMaxXMaxYCorner]
        g.cornerCurve = .continuous
        root.addSublayer(g)
        let (image, _) = try render(root)
        let wrong = Self.shapeMismatches(image, rect: g.frame, radius: 30, rounded: ["minXMaxY", "maxXMaxY"], continuous: true,
                                         fill: blue, tolerance: 1)
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("a shadow follows maskedCorners (drawn from the layer's alpha, not the analytic rounded rectangle)")
    func shadowFollows() throws {
        let root = rootLayer()
        let l = solid(Rect(x: 40, y: 30, width: 100, height: 100), .blue)
        l.cornerRadius = 30
        l.maskedCorners = [.layerMaxXMinYCorner, .layerMaxXMaxYCorner]
        l.shadowOpacity = 1
        l.shadowRadius = 0
        l.shadowColor = .black
        l.shadowOffset = Size(width: 0, height: 40)
        root.addSublayer(l)
        let (image, _) = try render(root)
        // The shadow is the shape moved 40 down; below the layer only the shadow shows.
        let shadow = Rect(x: 40, y: 70, width: 100, height: 100)
        let wrong = image.mismatches(tolerance: 1) { x, y in
            guard y >= 132 else { return nil }
            if Self.inside(x, y, rect: shadow, radius: 30, rounded: ["maxXMinY", "maxXMaxY"], margin: 1) { return black }
            if !Self.inside(x, y, rect: shadow, radius: 30, rounded: ["maxXMinY", "maxXMaxY"], margin: -1) { return white }
            return nil
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(image[41, 168] == black, "the square bottom-left corner's shadow")
        #expect(image[138, 168] == white, "the rounded bottom-right corner's")
    }

    @Test("changing maskedCorners or cornerCurve redraws only the layer's box")
    func changeDamagesTheLayer() throws {
        let device = try GPUDevice()
        let renderer = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200), scale: 1)
        let root = rootLayer()
        let l = solid(Rect(x: 40, y: 40, width: 100, height: 100), .blue)
        l.cornerRadius = 20
        root.addSublayer(l)
        _ = try renderer.render(root, to: target, background: .white)
        l.maskedCorners = [.layerMinXMinYCorner]
        let a = try renderer.render(root, to: target, background: .white)
        // Its box: the frame and the pixel around it its antialiased edge may touch.
        let box = Rect(x: 39, y: 39, width: 102, height: 102)
        #expect(a.damageRects == [box], "\(a.damageRects)")
        l.cornerCurve = .continuous
        let b = try renderer.render(root, to: target, background: .white)
        #expect(b.damageRects == [box], "\(b.damageRects)")
        let image = try target.readPixels()
        let wrong = Self.shapeMismatches(image, rect: l.frame, radius: 20, rounded: ["minXMinY"], continuous: true, fill: blue)
        #expect(wrong.isEmpty, "\(wrong)")
    }

    static func mask(_ names: [String]) -> CornerMask {
        var m: CornerMask = []
        for n in names {
            switch n {
            case "minXMinY": m.insert(.layerMinXMinYCorner)
            case "maxXMinY": m.insert(.layerMaxXMinYCorner)
            case "minXMaxY": m.insert(.layerMinXMaxYCorner)
            case "maxXMaxY": m.insert(.layerMaxXMaxYCorner)
            default: Issue.record("no corner \(n)")
            }
        }
        return m
    }
}

@Suite("Corner shapes (values)")
struct CornerShapeValueTests {
    @Test("mirroring a mask swaps min and max per axis")
    func mirrored() {
        let m: CornerMask = [.layerMinXMinYCorner, .layerMinXMaxYCorner]
        #expect(m.mirrored(x: true, y: false) == [.layerMaxXMinYCorner, .layerMaxXMaxYCorner])
        #expect(CornerMask.layerMinXMinYCorner.mirrored(x: true, y: true) == .layerMaxXMaxYCorner)
        #expect(CornerMask.all.mirrored(x: true, y: true) == .all)
    }

    @Test("signed distances: circular exact, continuous on its curve at the ends and the diagonal")
    func distances() {
        let rect = Rect(x: 0, y: 0, width: 100, height: 100)
        let circular = CornerShape(radius: 20)
        // Centre of the top-left arc (20, 20): the point 25 from it along the diagonal is 5 out.
        let p = Point(x: 20 - 25 / 2.0.squareRoot(), y: 20 - 25 / 2.0.squareRoot())
        #expect(abs(circular.signedDistance(to: p, in: rect) - 5) < 1e-9)
        #expect(abs(circular.signedDistance(to: Point(x: 50, y: 3), in: rect) + 3) < 1e-9)
        let continuous = CornerShape(radius: 20, curve: .continuous)
        // The circle's diagonal point, 20(1 − 1/√2) in from both edges, is on both curves.
        let d = 20 * (1 - 1 / 2.0.squareRoot())
        #expect(abs(continuous.signedDistance(to: Point(x: d, y: d), in: rect)) < 1e-3)
        // Where the continuous corner leaves the top edge (1.528665 radii from the corner).
        #expect(abs(continuous.signedDistance(to: Point(x: 20 * 1.528665, y: 0), in: rect)) < 1e-9)
        // 15 along the top edge: the circle's edge is 0.64 in, the continuous corner's 1.08.
        #expect(circular.signedDistance(to: Point(x: 15, y: 0.85), in: rect) < 0)
        #expect(continuous.signedDistance(to: Point(x: 15, y: 0.85), in: rect) > 0, "cut where the circle is not")
        // Square corners: masked out.
        let one = CornerShape(radius: 20, corners: .layerMaxXMaxYCorner)
        #expect(one.contains(Point(x: 0.5, y: 0.5), in: rect) && !one.contains(Point(x: 99.5, y: 99.5), in: rect))
        #expect(CornerShape(radius: 20, corners: []).isUniformCircular && !CornerShape(radius: 20, corners: []).isRounded)
    }
}
