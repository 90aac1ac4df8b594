import LaminaGeometry
import Testing
@testable import LaminaGraphics

private func px(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) -> RGBAPixel { RGBAPixel(r: r, g: g, b: b, a: a) }
private let clear = px(0, 0, 0, 0)

/// Draws into a fresh transparent bitmap of `size` points at `scale`; returns its pixels.
private func draw(width: Int, height: Int, scale: Double = 1, origin: Point = .zero, clip: Rect? = nil,
                  _ body: (GraphicsContext) -> Void) throws -> RGBAImage {
    let bitmap = try Bitmap(pixelSize: PixelSize(width: width, height: height))
    let ctx = GraphicsContext(bitmap: bitmap, scale: scale, origin: origin, clip: clip)
    body(ctx)
    ctx.invalidate()
    #expect(!ctx.isValid)
    return bitmap.rgbaImage()
}

private func count(_ image: RGBAImage, _ predicate: (RGBAPixel) -> Bool) -> Int {
    var n = 0
    for y in 0..<image.height { for x in 0..<image.width where predicate(image[x, y]) { n += 1 } }
    return n
}

@Suite("Drawing context (Cairo)")
struct GraphicsContextTests {
    @Test("the context is scaled, offset to the bounds origin and clipped, as UIKit sets it up")
    func setup() throws {
        // Bounds origin (10, 10), scale 2, clipped to the points (10…20, 10…15).
        let image = try draw(width: 40, height: 40, scale: 2, origin: Point(x: 10, y: 10), clip: Rect(x: 10, y: 10, width: 10, height: 5)) { c in
            c.setFillColor(.red)
            c.fill(Rect(x: 0, y: 0, width: 100, height: 100))
            #expect(c.clipBoundingBox == Rect(x: 10, y: 10, width: 10, height: 5))
        }
        for y in 0..<40 { for x in 0..<40 {
            #expect(image[x, y] == (x < 20 && y < 10 ? px(255, 0, 0) : clear), "(\(x),\(y))")
        } }
    }

    @Test("save/restore and the CTM: translate, scale, rotate")
    func transforms() throws {
        let image = try draw(width: 40, height: 40) { c in
            c.save()
            c.translateBy(x: 20, y: 20)
            c.rotate(by: .pi / 2)           // +x turns to +y
            c.setFillColor(.blue)
            c.fill(Rect(x: 0, y: -2, width: 10, height: 4))   // points right before the turn: down after
            c.restore()
            #expect(c.ctm == .identity)
            c.setFillColor(.green)
            c.fill(Rect(x: 0, y: 0, width: 2, height: 2))
        }
        #expect(image[20, 25] == px(0, 0, 255))
        #expect(image[25, 20] == clear)
        #expect(image[1, 1] == px(0, 255, 0))
    }

    @Test("fill rules: non-zero fills a same-direction inner square, even-odd leaves a hole")
    func fillRules() throws {
        for rule in FillRule.allCases {
            let image = try draw(width: 30, height: 30) { c in
                c.setFillColor(.black)
                c.addRect(Rect(x: 0, y: 0, width: 30, height: 30))
                c.addRect(Rect(x: 10, y: 10, width: 10, height: 10))
                c.fillPath(using: rule)
            }
            #expect(image[2, 2] == px(0, 0, 0))
            #expect(image[15, 15] == (rule == .nonZero ? px(0, 0, 0) : clear), "\(rule)")
        }
    }

    @Test("paths: lines, quadratic and cubic curves, arcs, ellipses and rounded rects fill their areas")
    func paths() throws {
        let image = try draw(width: 100, height: 100) { c in
            c.setFillColor(.red)
            c.move(to: Point(x: 0, y: 0)); c.addLine(to: Point(x: 40, y: 0)); c.addLine(to: Point(x: 0, y: 40)); c.closePath()
            c.fillPath()
            c.beginPath()
            c.move(to: Point(x: 50, y: 40)); c.addQuadCurve(to: Point(x: 90, y: 40), control: Point(x: 70, y: 0)); c.closePath()
            c.setFillColor(.green); c.fillPath()
            c.beginPath()
            c.addArc(center: Point(x: 25, y: 75), radius: 20, startAngle: 0, endAngle: 2 * .pi)
            c.setFillColor(.blue); c.fillPath()
            c.setFillColor(.black)
            c.beginPath(); c.addRoundedRect(Rect(x: 55, y: 55, width: 40, height: 40), cornerRadius: 15); c.fillPath()
        }
        #expect(image[5, 5] == px(255, 0, 0) && image[35, 35] == clear)          // triangle
        #expect(image[70, 30] == px(0, 255, 0) && image[70, 12] == clear)         // the quad curve peaks at y = 20
        #expect(image[25, 75] == px(0, 0, 255) && image[7, 57] == clear)           // circle
        #expect(image[75, 75] == px(0, 0, 0) && image[56, 56] == clear)           // rounded corner cut
    }

    @Test("strokes: width, caps, joins and dashes")
    func strokes() throws {
        let image = try draw(width: 100, height: 60) { c in
            c.setStrokeColor(.black)
            c.setLineWidth(6)
            c.setLineCap(.butt)
            c.move(to: Point(x: 20, y: 10)); c.addLine(to: Point(x: 80, y: 10)); c.strokePath()
            c.setLineCap(.square)
            c.move(to: Point(x: 20, y: 30)); c.addLine(to: Point(x: 80, y: 30)); c.strokePath()
            c.setLineCap(.butt)
            c.setLineDash(phase: 0, lengths: [10, 10])
            c.move(to: Point(x: 0, y: 50)); c.addLine(to: Point(x: 100, y: 50)); c.strokePath()
        }
        #expect(image[50, 8] == px(0, 0, 0) && image[50, 14] == clear)    // 6 wide: y 7…13
        #expect(image[18, 10] == clear)                                    // butt: nothing before x = 20
        #expect(image[18, 30] == px(0, 0, 0))                              // square cap: 3 more
        #expect(image[5, 50] == px(0, 0, 0) && image[15, 50] == clear && image[25, 50] == px(0, 0, 0))   // dashes
    }

    @Test("linear and radial gradients paint the clip with their stops")
    func gradients() throws {
        let image = try draw(width: 100, height: 40) { c in
            c.save()
            c.clip(to: Rect(x: 0, y: 0, width: 50, height: 40))
            c.drawLinearGradient(Gradient(colors: [.black, .white]), start: Point(x: 0, y: 0), end: Point(x: 50, y: 0))
            c.restore()
            c.clip(to: Rect(x: 50, y: 0, width: 50, height: 40))
            c.drawRadialGradient(Gradient(colors: [.red, .blue]), startCenter: Point(x: 75, y: 20), startRadius: 0,
                                 endCenter: Point(x: 75, y: 20), endRadius: 20)
        }
        #expect(image[0, 20].r < 10 && image[49, 20].r > 245)
        #expect(abs(Int(image[25, 20].r) - 128) <= 4)
        #expect(image[75, 20].r > 240 && image[75, 20].b < 15)            // centre: red
        #expect(image[99, 20].b > 240 && image[99, 20].r < 15)            // beyond the radius: blue (padded)
    }

    @Test("images are drawn stretched into a rect with the chosen interpolation")
    func images() throws {
        var source = RGBAImage(width: 2, height: 2)
        source[0, 0] = px(255, 0, 0); source[1, 0] = px(0, 255, 0); source[0, 1] = px(0, 0, 255); source[1, 1] = px(255, 255, 255)
        let nearest = try draw(width: 40, height: 40) { $0.draw(source, in: Rect(x: 0, y: 0, width: 40, height: 40), interpolation: .none) }
        for y in 0..<40 { for x in 0..<40 { #expect(nearest[x, y] == source[x / 20, y / 20]) } }
        let smooth = try draw(width: 40, height: 40) { $0.draw(source, in: Rect(x: 0, y: 0, width: 40, height: 40), interpolation: .high) }
        #expect(smooth[19, 5] != source[0, 0])     // blended near the seam
    }

    @Test("clipping to a path: an ellipse clip leaves the corners untouched")
    func clipToPath() throws {
        let image = try draw(width: 40, height: 40) { c in
            c.addEllipse(in: Rect(x: 0, y: 0, width: 40, height: 40))
            c.clip()
            c.setFillColor(.red)
            c.fill(Rect(x: 0, y: 0, width: 40, height: 40))
        }
        #expect(image[20, 20] == px(255, 0, 0) && image[1, 1] == clear && image[38, 38] == clear)
    }

    @Test("text renders glyph pixels through Pango; fonts, weights and wrapping measure differently")
    func text() throws {
        let sans = Font(family: "DejaVu Sans", size: 20)
        let image = try draw(width: 200, height: 40) { c in
            let size = c.draw("Lamina", at: Point(x: 4, y: 4), font: sans, color: .black)
            #expect(size.width > 40 && size.height > 15)
        }
        let inked = count(image) { $0.a > 128 }
        #expect(inked > 100, "glyph pixels: \(inked)")
        #expect(count(image) { $0.a > 0 && $0.a < 255 } > 10)    // antialiased edges
        let text = "Hello, compositor"
        let mono = GraphicsContext.measure(text, font: Font(family: "DejaVu Sans Mono", size: 20))
        let regular = GraphicsContext.measure(text, font: sans)
        let bold = GraphicsContext.measure(text, font: Font(family: "DejaVu Sans", size: 20, weight: .bold))
        let serif = GraphicsContext.measure(text, font: Font(family: "DejaVu Serif", size: 20))
        #expect(mono.width != regular.width && serif.width != regular.width && bold.width > regular.width)
        #expect(GraphicsContext.measure(text, font: Font(family: "DejaVu Sans", size: 40)).width > regular.width * 1.8)
        let wrapped = GraphicsContext.measure(text, font: sans, width: 80)
        #expect(wrapped.height > regular.height * 1.8, "wrapped to several lines: \(wrapped)")
        #expect(wrapped.width <= 80)
    }

    @Test("text in a box wraps and is clipped to the box")
    func textInBox() throws {
        let image = try draw(width: 120, height: 100) { c in
            c.draw("one two three four five six seven", in: Rect(x: 10, y: 10, width: 60, height: 40),
                   font: Font(size: 14), color: .black, alignment: .center)
        }
        var outside = 0
        for y in 0..<100 { for x in 0..<120 where image[x, y].a > 0 {
            if !(10..<70).contains(x) || !(10..<50).contains(y) { outside += 1 }
        } }
        #expect(outside == 0)
        #expect(count(image) { $0.a > 128 } > 100)
    }

    @Test("text does not disturb the path being built; invalid dashes draw solid lines")
    func textKeepsPath() throws {
        let image = try draw(width: 60, height: 40) { c in
            c.addRect(Rect(x: 0, y: 0, width: 20, height: 20))
            c.draw("x", in: Rect(x: 30, y: 0, width: 30, height: 20), font: Font(size: 10), color: .black)
            c.draw("y", at: Point(x: 30, y: 20), font: Font(size: 10), color: .black)
            c.setFillColor(.red)
            c.fillPath()
            c.setLineDash(phase: 0, lengths: [0, 0])
            c.setStrokeColor(.blue)
            c.setLineWidth(2)
            c.move(to: Point(x: 0, y: 35)); c.addLine(to: Point(x: 30, y: 35)); c.strokePath()
            c.restore()   // unbalanced: ignored
            c.setFillColor(.green)
            c.fill(Rect(x: 0, y: 25, width: 5, height: 5))
        }
        #expect(image[10, 10] == px(255, 0, 0), "the rect path survived the text calls")
        #expect(image[20, 35] == px(0, 0, 255), "an all-zero dash is solid, and later drawing works")
        #expect(image[2, 27] == px(0, 255, 0))
    }

    @Test("bitmaps refuse empty and oversized sizes with a clear error")
    func bitmapLimits() {
        #expect(throws: GraphicsError.invalidBitmapSize(PixelSize(width: 0, height: 5), maximum: Bitmap.maximumSide)) {
            _ = try Bitmap(pixelSize: PixelSize(width: 0, height: 5))
        }
        #expect(throws: GraphicsError.self) { _ = try Bitmap(pixelSize: PixelSize(width: 40000, height: 5)) }
    }

    @Test("opaque bitmaps have no alpha channel: their pixels read back opaque")
    func opaqueBitmap() throws {
        let bitmap = try Bitmap(pixelSize: PixelSize(width: 4, height: 4), isOpaque: true)
        let c = GraphicsContext(bitmap: bitmap)
        c.setFillColor(.green)
        c.fill(Rect(x: 0, y: 0, width: 4, height: 4))
        c.invalidate()
        #expect(bitmap.rgbaImage()[2, 2] == px(0, 255, 0))
    }
}
