import CGLES
import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

// Shape layers (Sources/LaminaModel/ShapeLayer.swift: rasterised into contents, drawn by
// ContentsItem).
private final class PathDrawing: Layer {
    var path = Path()
    override func draw(in ctx: GraphicsContext) {
        ctx.setFillColor(Color(red: 0.9, green: 0.7, blue: 0.1))
        ctx.addPath(path)
        ctx.fillPath(using: .evenOdd)
        ctx.setStrokeColor(Color(red: 0.2, green: 0.1, blue: 0.6))
        ctx.setLineWidth(4)
        ctx.setLineJoin(.round)
        ctx.setLineCap(.round)
        ctx.setLineDash(phase: 2, lengths: [12, 6])
        ctx.addPath(path)
        ctx.strokePath()
    }
}

extension EffectsTests {
    static func star(scale k: Double = 1, center: Point) -> Path {
        var star = Path()
        for i in 0..<10 {
            let r = (i % 2 == 0 ? 60.0 : 25.0) * k, a = Double(i) * .pi / 5 - .pi / 2
            let p = Point(x: center.x + r * cos(a), y: center.y + r * sin(a))
            if i == 0 { star.move(to: p) } else { star.addLine(to: p) }
        }
        star.closeSubpath()
        star.addEllipse(in: Rect(x: center.x - 10 * k, y: center.y - 10 * k, width: 20 * k, height: 20 * k))
        return star
    }

    func styled(_ s: ShapeLayer) {
        s.fillColor = Color(red: 0.9, green: 0.7, blue: 0.1)
        s.fillRule = .evenOdd
        s.strokeColor = Color(red: 0.2, green: 0.1, blue: 0.6)
        s.lineWidth = 4
        s.lineJoin = .round
        s.lineCap = .round
        s.lineDashPattern = [12, 6]
        s.lineDashPhase = 2
    }

    @Test("a ShapeLayer equals the same path filled and stroked (dashes, joins, caps, even-odd) by draw(in:) with the 2D context (within 1/255)")
    func shapeReftest() throws {
        let root = rootLayer()
        let shape = ShapeLayer()
        shape.frame = Rect(x: 30, y: 30, width: 140, height: 140)
        shape.path = Self.star(center: Point(x: 70, y: 70))
        styled(shape)
        root.addSublayer(shape)
        try Transaction.flush()
        let (image, _) = try render(root)
        let root2 = rootLayer()
        let drawn = PathDrawing()
        drawn.frame = Rect(x: 30, y: 30, width: 140, height: 140)
        drawn.path = Self.star(center: Point(x: 70, y: 70))
        drawn.setNeedsDisplay()
        root2.addSublayer(drawn)
        try Transaction.flush()
        let (reference, _) = try render(root2)
        let d = image.difference(from: reference, tolerance: 1)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
        #expect(image[100, 60] != white && image[100, 100] == white, "filled, with the even-odd hole in the middle")
    }

    @Test("a ShapeLayer draws once per change of path or style, never on a move or transform; strokeStart/strokeEnd trim the stroke; a path outside the bounds shows")
    func shapeCounts() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let shape = ShapeLayer()                    // zero-sized, placed by position
        shape.position = Point(x: 100, y: 100)
        shape.path = Self.star(center: .zero)
        styled(shape)
        root.addSublayer(shape)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        try Transaction.flush()
        #expect(shape.displayCount == 1)
        #expect(try target.readPixels()[100, 60] != white, "the path, outside the zero-sized bounds, shows")
        shape.position = Point(x: 90, y: 110)
        shape.transform = Transform3D(rotationAngle: 0.4, x: 0, y: 0, z: 1)
        try Transaction.flush()
        #expect(shape.displayCount == 1 && host.lastFrame.textureBytesUploaded == 0, "moving draws nothing: \(host.lastFrame)")
        shape.path = Self.star(scale: 0.8, center: .zero)
        shape.strokeColor = .black
        try Transaction.flush()
        #expect(shape.displayCount == 2 && host.lastFrame.layersDrawn == 1, "a new path and colour draw once together")
        // Trimming: strokeEnd 0 leaves the fill only.
        shape.transform = .identity
        shape.position = Point(x: 100, y: 100)
        shape.fillColor = nil
        shape.strokeEnd = 0.5
        try Transaction.flush()
        let half = try target.readPixels()
        shape.strokeEnd = 1
        try Transaction.flush()
        let whole = try target.readPixels()
        let d = half.difference(from: whole, tolerance: 0)
        #expect(d.differing > 200, "the second half of the stroke is missing at strokeEnd 0.5")
        #expect(shape.displayCount == 4)
    }

    @Test("a ShapeLayer shown larger (a scale transform on an ancestor) is rasterised again at the new scale: it equals the path drawn at that scale, not a blurred enlargement")
    func shapeScale() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let container = Layer()
        container.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let shape = ShapeLayer()
        shape.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        shape.path = Self.star(scale: 1 / 3, center: Point(x: 100 / 3, y: 100 / 3))
        styled(shape)
        shape.lineWidth = 4.0 / 3
        shape.lineDashPattern = nil
        container.addSublayer(shape)
        root.addSublayer(container)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        try Transaction.flush()
        #expect(shape.rasterizedScale == 1)
        container.anchorPoint = .zero
        container.position = .zero
        container.transform = Transform3D(scaleX: 3, y: 3)
        try Transaction.flush()
        #expect(shape.rasterizedScale == 3 && shape.displayCount == 2)
        let scaled = try target.readPixels()
        // The reference: the same path drawn 3× larger at scale 1.
        let root2 = rootLayer()
        let big = ShapeLayer()
        big.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        big.path = Self.star(scale: 1, center: Point(x: 100, y: 100))
        styled(big)
        big.lineDashPattern = nil
        root2.addSublayer(big)
        try Transaction.flush()
        let (reference, _) = try render(root2)
        let d = scaled.difference(from: reference, tolerance: 2)
        #expect(d.differing < 40, "\(d.differing) pixels differ by up to \(d.maxDifference) (a 3× enlargement of a 1× raster differs in thousands)")
    }
}
