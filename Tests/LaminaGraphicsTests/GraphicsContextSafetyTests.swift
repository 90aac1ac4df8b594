import LaminaGeometry
import Testing
@testable import LaminaGraphics

private let red = RGBAPixel(r: 255, g: 0, b: 0, a: 255)

private func redPixels(_ image: RGBAImage) -> Int {
    var n = 0
    for y in 0..<image.height { for x in 0..<image.width where image[x, y] == red { n += 1 } }
    return n
}

/// Draws into a fresh 32×32 transparent bitmap; returns its pixels.
private func draw(_ body: (GraphicsContext) -> Void) throws -> RGBAImage {
    let bitmap = try Bitmap(pixelSize: PixelSize(width: 32, height: 32))
    let c = GraphicsContext(bitmap: bitmap)
    body(c)
    c.invalidate()
    return bitmap.rgbaImage()
}

@Suite("Drawing context: bounded and safe on any input")
struct GraphicsContextSafetyTests {
    @Test("a context used after its draw returned does nothing (no trap): paths, paints, text, transforms, queries")
    func useAfterInvalidate() throws {
        let bitmap = try Bitmap(pixelSize: PixelSize(width: 8, height: 8))
        let c = GraphicsContext(bitmap: bitmap)
        c.invalidate()
        #expect(!c.isValid)
        c.save()
        c.translateBy(x: 1, y: 1); c.scaleBy(x: 2, y: 2); c.rotate(by: 1)
        c.setFillColor(.red); c.fill(Rect(x: 0, y: 0, width: 8, height: 8))
        c.move(to: .zero); c.addLine(to: Point(x: 8, y: 8)); c.strokePath()
        c.fillEllipse(in: Rect(x: 0, y: 0, width: 8, height: 8))
        c.drawLinearGradient(Gradient(colors: [.red, .blue]), start: .zero, end: Point(x: 8, y: 0))
        c.draw(RGBAImage(width: 1, height: 1), in: Rect(x: 0, y: 0, width: 8, height: 8))
        #expect(c.draw("text", at: .zero, font: Font(), color: .red) == .zero)
        c.clip(to: Rect(x: 0, y: 0, width: 1, height: 1))
        c.restore()
        #expect(c.paintCount == 0)
        #expect(c.ctm == Transform2D(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0))
        #expect(redPixels(bitmap.rgbaImage()) == 0)
    }

    @Test("a degenerate ellipse (1e-300 × 1e300) returns at once and draws nothing; later drawing still works")
    func degenerateEllipse() throws {
        let image = try draw { c in
            c.setFillColor(.red)
            c.fillEllipse(in: Rect(x: 0, y: 0, width: 1e-300, height: 1e300))
            c.strokeEllipse(in: Rect(x: 0, y: 0, width: 1e-300, height: 10))
            c.addArc(center: .zero, radius: 1e300, startAngle: 0, endAngle: 6)
            c.fillPath()
            #expect(c.paintCount == 3)   // fills and a stroke of empty paths
            c.fill(Rect(x: 0, y: 0, width: 4, height: 4))
        }
        #expect(redPixels(image) == 16)
    }

    @Test("non-finite geometry is ignored, and a degenerate transform does not break the context")
    func nonFinite() throws {
        let image = try draw { c in
            c.setFillColor(.red)
            c.fill(Rect(x: .nan, y: 0, width: 10, height: 10))
            c.fill(Rect(x: 0, y: 0, width: .infinity, height: 10))
            c.move(to: Point(x: .nan, y: 0)); c.addLine(to: Point(x: .infinity, y: 1)); c.fillPath()
            c.fillEllipse(in: Rect(x: 0, y: 0, width: .nan, height: 3))
            c.setLineWidth(.nan)
            c.setLineDash(phase: .infinity, lengths: [1, .nan])
            c.save()
            c.scaleBy(x: 0, y: 0)            // would put Cairo in a lasting error state
            c.scaleBy(x: 1e300, y: 1e300)
            c.translateBy(x: .nan, y: 0)
            c.rotate(by: .infinity)
            c.restore()
            c.fill(Rect(x: 0, y: 0, width: 2, height: 2))
        }
        #expect(redPixels(image) == 4)
    }

    @Test("a text box wider than Pango's 32-bit range (3e6 pt), or not finite, does not trap")
    func wideTextBox() throws {
        _ = try draw { c in
            let wide = c.draw("hello world", in: Rect(x: 0, y: 0, width: 3e6, height: 20), font: Font(), color: .red)
            #expect(wide.width > 0 && wide.height > 0)
            #expect(c.draw("hello", in: Rect(x: 0, y: 0, width: .infinity, height: 20), font: Font(), color: .red) == .zero)
        }
        let measured = GraphicsContext.measure("hello world", font: Font(), width: 3e6)
        #expect(measured == GraphicsContext.measure("hello world", font: Font()))
        #expect(GraphicsContext.measure("hello", font: Font(), width: .nan).width > 0)
        #expect(GraphicsContext.measure("hello", font: Font(size: .nan)) == GraphicsContext.measure("hello", font: Font()))
    }

    @Test("text is limited to maximumTextLength characters: a 100 000-character word lays out as the first 10 000")
    func longWord() throws {
        let limit = GraphicsContext.maximumTextLength
        let long = String(repeating: "a", count: 100_000)
        let atLimit = String(repeating: "a", count: limit)
        #expect(GraphicsContext.measure(long, font: Font(), width: 200) == GraphicsContext.measure(atLimit, font: Font(), width: 200))
        #expect(GraphicsContext.measure(long, font: Font()) == GraphicsContext.measure(atLimit, font: Font()))
    }

    @Test("a word too long for the box still wraps at characters; normal text keeps word wrapping")
    func longWordWraps() throws {
        let word = String(repeating: "m", count: GraphicsContext.longWordLength + 1)
        let width = GraphicsContext.measure("mmmmmmmmmm", font: Font()).width + 0.5
        let wrapped = GraphicsContext.measure(word, font: Font(), width: width)
        let line = GraphicsContext.measure("m", font: Font()).height
        #expect(wrapped.width <= width)
        #expect(wrapped.height / line > 90)                     // about 10 m a line
        #expect(TextLayout.longestWord("ab cd\tefg h") == 3)
        let text = GraphicsContext.measure("aaa bbb", font: Font(), width: GraphicsContext.measure("aaa bb", font: Font()).width)
        #expect((text.height / line).rounded() == 2)            // "aaa" / "bbb": at the space
    }
}
