import Foundation
import LaminaGeometry
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues

@MainActor
@Suite("Layer geometry (pixels)")
struct GeometryPixelTests {
    @Test("anchorPoint and position place the bounds: a 50×40 green layer anchored at (0,0) at (30,20)")
    func anchorAndPosition() throws {
        let root = rootLayer()
        let l = Layer()
        l.bounds = Rect(x: 0, y: 0, width: 50, height: 40)
        l.anchorPoint = Point(x: 0, y: 0)
        l.position = Point(x: 30, y: 20)
        l.backgroundColor = .green
        root.addSublayer(l)
        // The default anchor (0.5, 0.5) puts the centre at the position.
        let c = solid(.zero, .blue)
        c.bounds = Rect(x: 0, y: 0, width: 20, height: 10)
        c.position = Point(x: 150, y: 150)
        root.addSublayer(c)
        let (image, _) = try render(root)
        let wrong = image.mismatches { x, y in
            if (30..<80).contains(x) && (20..<60).contains(y) { return green }
            if (140..<160).contains(x) && (145..<155).contains(y) { return blue }
            return white
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(l.frame == Rect(x: 30, y: 20, width: 50, height: 40))
        #expect(c.frame == Rect(x: 140, y: 145, width: 20, height: 10))
    }

    @Test("rotation turns about the anchor point: a 100×20 bar rotated 90° about its left end")
    func rotationAboutAnchor() throws {
        let root = rootLayer()
        let bar = solid(.zero, .red)
        bar.bounds = Rect(x: 0, y: 0, width: 100, height: 20)
        bar.anchorPoint = Point(x: 0, y: 0.5)
        bar.position = Point(x: 100, y: 50)
        bar.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)   // +x turns to +y (clockwise)
        root.addSublayer(bar)
        let (image, _) = try render(root)
        // The bar now hangs down from (100, 50): x 90..<110, y 50..<150.
        let wrong = image.mismatches { x, y in (90..<110).contains(x) && (50..<150).contains(y) ? red : white }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("scale grows about the anchor: 40×40 at centre (100,100) scaled 2×1.5")
    func scale() throws {
        let root = rootLayer()
        let l = solid(Rect(x: 80, y: 80, width: 40, height: 40), .blue)
        l.transform = Transform3D(scaleX: 2, y: 1.5)
        root.addSublayer(l)
        let (image, _) = try render(root)
        let wrong = image.mismatches { x, y in (60..<140).contains(x) && (70..<130).contains(y) ? blue : white }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(l.frame == Rect(x: 60, y: 70, width: 80, height: 60))
    }

    @Test("perspective rotation about Y matches the analytic projection of the corners (within 1 px)")
    func perspective() throws {
        let root = rootLayer()
        let d = 400.0, angle = Double.pi / 4
        root.sublayerTransform.m34 = -1 / d
        let card = solid(Rect(x: 50, y: 50, width: 100, height: 100), .green)
        card.transform = Transform3D(rotationAngle: angle, x: 0, y: 1, z: 0)
        root.addSublayer(card)
        let (image, _) = try render(root)
        // Corner (x, y) relative to the centre: rotY gives x·cos, z = -x·sin (CATransform3D);
        // perspective: w = 1 - z/d. Screen = centre + (x·cos, y)/w.
        func project(_ x: Double, _ y: Double) -> Point {
            let z = -x * sin(angle), w = 1 - z / d
            return Point(x: 100 + x * cos(angle) / w, y: 100 + y / w)
        }
        let corners = [project(-50, -50), project(50, -50), project(-50, 50), project(50, 50)]
        let box = try #require(image.boundingBox { $0.g > 128 && $0.r < 128 })
        let minX = corners.map(\.x).min()!, maxX = corners.map(\.x).max()!
        let minY = corners.map(\.y).min()!, maxY = corners.map(\.y).max()!
        #expect(abs(Double(box.x) - minX) <= 1, "left \(box.x) vs \(minX)")
        #expect(abs(Double(box.x + box.width) - maxX) <= 1, "right \(box.x + box.width) vs \(maxX)")
        #expect(abs(Double(box.y) - minY) <= 1, "top \(box.y) vs \(minY)")
        #expect(abs(Double(box.y + box.height) - maxY) <= 1, "bottom \(box.y + box.height) vs \(maxY)")
        // The near edge is taller than the far one: measure each side's column.
        func columnHeight(_ x: Int) -> Int { (0..<200).filter { image[x, $0].g > 128 && image[x, $0].r < 128 }.count }
        let leftHeight = columnHeight(Int(corners[0].x.rounded()) + 1), rightHeight = columnHeight(Int(corners[1].x.rounded()) - 2)
        #expect(abs(Double(leftHeight) - (corners[2].y - corners[0].y)) <= 2, "left edge \(leftHeight)")
        #expect(abs(Double(rightHeight) - (corners[3].y - corners[1].y)) <= 2, "right edge \(rightHeight)")
        #expect(leftHeight != rightHeight)
    }

    @Test("sublayerTransform moves every sublayer, about the layer's anchor")
    func sublayerTransform() throws {
        let root = rootLayer()
        let parent = Layer()
        parent.frame = Rect(x: 50, y: 50, width: 100, height: 100)
        parent.sublayerTransform = Transform3D(rotationAngle: .pi, x: 0, y: 0, z: 1)   // half turn about the centre
        parent.addSublayer(solid(Rect(x: 0, y: 0, width: 20, height: 20), .red))
        root.addSublayer(parent)
        let (image, _) = try render(root)
        // The child at the parent's top-left ends at its bottom-right: (130..<150).
        let wrong = image.mismatches { x, y in (130..<150).contains(x) && (130..<150).contains(y) ? red : white }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("frame set under a transform reads back what was set and places the bounding box there")
    func frameUnderTransform() throws {
        let root = rootLayer()
        let l = Layer()
        l.backgroundColor = .blue
        l.transform = Transform3D(scaleX: 2, y: 0.5)
        l.frame = Rect(x: 20, y: 30, width: 100, height: 40)
        #expect(l.bounds.size == Size(width: 50, height: 80))
        #expect(l.frame == Rect(x: 20, y: 30, width: 100, height: 40))
        // A quarter turn swaps the sides.
        let r = Layer()
        r.backgroundColor = .red
        r.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        r.frame = Rect(x: 140, y: 100, width: 30, height: 60)
        #expect(abs(r.bounds.size.width - 60) < 1e-9 && abs(r.bounds.size.height - 30) < 1e-9)
        let f = r.frame
        #expect(abs(f.minX - 140) < 1e-9 && abs(f.minY - 100) < 1e-9 && abs(f.width - 30) < 1e-9 && abs(f.height - 60) < 1e-9)
        root.addSublayer(l)
        root.addSublayer(r)
        let (image, _) = try render(root)
        let wrong = image.mismatches { x, y in
            if (20..<120).contains(x) && (30..<70).contains(y) { return blue }
            if (140..<170).contains(x) && (100..<160).contains(y) { return red }
            return white
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("zPosition orders siblings regardless of array order; equal values keep array order")
    func zPositionOrder() throws {
        let root = rootLayer()
        let a = solid(Rect(x: 20, y: 20, width: 100, height: 100), .red)
        let b = solid(Rect(x: 60, y: 60, width: 100, height: 100), .green)
        let c = solid(Rect(x: 100, y: 20, width: 60, height: 60), .blue)
        a.zPosition = 10            // first in the array, drawn last
        root.addSublayer(a); root.addSublayer(b); root.addSublayer(c)
        let (image, _) = try render(root)
        #expect(image[90, 90] == red)     // a over b
        #expect(image[110, 70] == red)    // a over c
        #expect(image[150, 70] == blue)   // c after b (equal zPosition: array order)
        #expect(image[150, 150] == green)
    }

    @Test("hidden layers and their sublayers draw nothing")
    func hidden() throws {
        let root = rootLayer()
        let parent = solid(Rect(x: 20, y: 20, width: 100, height: 100), .red)
        parent.addSublayer(solid(Rect(x: 10, y: 10, width: 20, height: 20), .blue))
        parent.isHidden = true
        root.addSublayer(parent)
        root.addSublayer(solid(Rect(x: 150, y: 150, width: 10, height: 10), .green))
        let (image, stats) = try render(root)
        #expect(image.mismatches { x, y in (150..<160).contains(x) && (150..<160).contains(y) ? green : white }.isEmpty)
        #expect(stats.quadsDrawn == 1)
    }

    @Test("isDoubleSided = false hides a layer turned 180° about Y; true shows its back")
    func doubleSided() throws {
        for doubleSided in [true, false] {
            let root = rootLayer()
            let card = solid(Rect(x: 50, y: 50, width: 100, height: 100), .green)
            card.transform = Transform3D(rotationAngle: .pi, x: 0, y: 1, z: 0)
            card.isDoubleSided = doubleSided
            root.addSublayer(card)
            let (image, _) = try render(root)
            #expect(image[100, 100] == (doubleSided ? green : white), "isDoubleSided \(doubleSided)")
        }
    }

    @Test("transform layers keep sublayers in one 3D space and draw them back to front")
    func transformLayerDepth() throws {
        let root = rootLayer()
        root.sublayerTransform.m34 = -1 / 500
        let space = TransformLayer()
        space.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let near = solid(Rect(x: 50, y: 50, width: 100, height: 100), .red)
        near.zPosition = 50
        let far = solid(Rect(x: 60, y: 60, width: 100, height: 100), .blue)
        far.zPosition = -50
        space.addSublayer(near)   // array order: near first
        space.addSublayer(far)
        root.addSublayer(space)
        let (image, _) = try render(root)
        #expect(image[100, 100] == red, "the nearer layer is in front")
        // Depth moved them: the near one looks bigger than 100 px, the far one smaller.
        let redBox = try #require(image.boundingBox { $0 == red })
        #expect(redBox.width > 105)
    }

    @Test("convert maps points and rects between layers, through transforms")
    func convert() throws {
        let root = rootLayer()
        let a = Layer()
        a.frame = Rect(x: 50, y: 50, width: 100, height: 100)
        let b = Layer()
        b.frame = Rect(x: 10, y: 20, width: 40, height: 40)
        b.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        a.addSublayer(b)
        root.addSublayer(a)
        let c = Layer()
        c.frame = Rect(x: 5, y: 5, width: 10, height: 10)
        root.addSublayer(c)
        // b's centre (20, 20) sits at a's (30, 40) = root (80, 90).
        let p = try #require(b.convert(Point(x: 20, y: 20), to: root))
        #expect(abs(p.x - 80) < 1e-9 && abs(p.y - 90) < 1e-9)
        // b's (40, 20) (right middle) rotates to below the centre: root (80, 110).
        let q = try #require(b.convert(Point(x: 40, y: 20), to: root))
        #expect(abs(q.x - 80) < 1e-9 && abs(q.y - 110) < 1e-9)
        // And back, and between siblings of different parents.
        let back = try #require(b.convert(Point(x: 80, y: 110), from: root))
        #expect(abs(back.x - 40) < 1e-9 && abs(back.y - 20) < 1e-9)
        let inC = try #require(b.convert(Point(x: 20, y: 20), to: c))
        #expect(abs(inC.x - 75) < 1e-9 && abs(inC.y - 85) < 1e-9)
        let r = try #require(a.convert(Rect(x: 0, y: 0, width: 10, height: 20), to: root))
        #expect(r == Rect(x: 50, y: 50, width: 10, height: 20))
        // Through perspective the conversion is projective and round-trips.
        root.sublayerTransform.m34 = -1 / 300
        a.transform = Transform3D(rotationAngle: 0.5, x: 0, y: 1, z: 0)
        let s = try #require(b.convert(Point(x: 3, y: 7), to: nil))
        let t = try #require(b.convert(s, from: nil))
        #expect(abs(t.x - 3) < 1e-9 && abs(t.y - 7) < 1e-9)
    }
}

@MainActor
@Suite("Layer tree")
struct TreeTests {
    @Test("add, insert at/above/below, remove, re-parent")
    func operations() {
        let root = Layer(), a = Layer(), b = Layer(), c = Layer(), d = Layer()
        root.addSublayer(a); root.addSublayer(b)
        root.insertSublayer(c, at: 1)
        #expect(root.sublayers.map { ObjectIdentifier($0) } == [a, c, b].map { ObjectIdentifier($0) })
        root.insertSublayer(d, above: a)
        #expect(root.sublayers.map { ObjectIdentifier($0) } == [a, d, c, b].map { ObjectIdentifier($0) })
        root.insertSublayer(b, below: a)   // moving within the same parent
        #expect(root.sublayers.map { ObjectIdentifier($0) } == [b, a, d, c].map { ObjectIdentifier($0) })
        a.addSublayer(d)                   // re-parenting removes it from root
        #expect(root.sublayers.count == 3 && d.superlayer === a && a.sublayers.count == 1)
        c.removeFromSuperlayer()
        #expect(c.superlayer == nil && root.sublayers.count == 2)
        root.replaceSublayer(b, with: c)
        #expect(root.sublayers.first === c && b.superlayer == nil)
    }

    @Test("cycles are refused and leave the tree unchanged")
    func cycles() {
        let root = Layer(), child = Layer(), grandchild = Layer()
        root.addSublayer(child); child.addSublayer(grandchild)
        #expect(!grandchild.addSublayer(root))
        #expect(!child.addSublayer(child))
        #expect(!grandchild.insertSublayer(child, at: 0))
        #expect(root.superlayer == nil && child.superlayer === root && grandchild.superlayer === child)
        #expect(grandchild.sublayers.isEmpty && child.sublayers.count == 1)
        let other = Layer()
        grandchild.addSublayer(other)
        grandchild.replaceSublayer(other, with: root)   // root is an ancestor: refused, nothing removed
        #expect(other.superlayer === grandchild && root.superlayer == nil)
    }
}
