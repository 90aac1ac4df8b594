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

@MainActor
@Suite("Text layers (TextLayer, CATextLayer)", .isolatedTransactions, .withoutImplicitAnimations)
struct TextLayerTests {
    @Test("a text layer equals the same text drawn through the 2D context (wrapped and centred; one line right-aligned), at contentsScale 2")
    func equalsTheContext() throws {
        final class Drawn: Layer {
            var body: (GraphicsContext, Rect) -> Void = { _, _ in }
            override func draw(in c: GraphicsContext) { body(c, bounds) }
        }
        let font = Font(family: "DejaVu Sans", size: 13, weight: .bold)
        for wrapped in [true, false] {
            let text = TextLayer()
            text.frame = Rect(x: 10, y: 10, width: 150, height: 60)
            text.contentsScale = 2
            text.string = "Views draw only when they are invalidated"
            text.font = font
            text.fontSize = 13
            text.foregroundColor = .blue
            text.alignmentMode = wrapped ? .center : .right
            text.isWrapped = wrapped
            let a = rootLayer()
            a.addSublayer(text)
            let drawn = Drawn()
            drawn.frame = text.frame
            drawn.contentsScale = 2
            drawn.body = { c, r in
                if wrapped {
                    c.draw("Views draw only when they are invalidated", in: r, font: font, color: .blue, alignment: .center)
                } else {
                    c.drawLine("Views draw only when they are invalidated", in: r, font: font, color: .blue, alignment: .right)
                }
            }
            drawn.setNeedsDisplay()
            let b = rootLayer()
            b.addSublayer(drawn)
            try Transaction.flush()
            let (ia, _) = try render(a, scale: 2)
            let (ib, _) = try render(b, scale: 2)
            let d = ia.difference(from: ib)
            #expect(d.differing == 0, "wrapped \(wrapped): \(d)")
            #expect(text.backingStore?.pixelSize == PixelSize(width: 300, height: 120), "drawn at contentsScale 2")
            // Something was drawn: blue ink inside the layer.
            #expect(ia.boundingBox { $0.b > 150 && $0.r < 100 } != nil)
        }
    }

    @Test("changes in one turn draw once; a change of any text property draws again; truncation changes what a long line shows")
    func drawsOnChange() throws {
        let text = TextLayer()
        text.frame = Rect(x: 0, y: 0, width: 80, height: 20)
        text.string = "a"
        text.string = "abc"
        text.fontSize = 12
        try Transaction.flush()
        #expect(text.displayCount == 1)
        text.foregroundColor = .red
        try Transaction.flush()
        #expect(text.displayCount == 2)
        try Transaction.flush()
        #expect(text.displayCount == 2, "nothing changed: not drawn")
        text.bounds = Rect(x: 0, y: 0, width: 60, height: 20)
        try Transaction.flush()
        #expect(text.displayCount == 3, "a bounds change draws again")
        // A long line: clipped, or cut with an ellipsis — not the same pixels.
        func image(_ mode: TextTruncation) throws -> RGBAImage {
            let root = rootLayer(width: 100, height: 30)
            let t = TextLayer()
            t.frame = Rect(x: 0, y: 0, width: 100, height: 30)
            t.string = "A line far too long for its layer"
            t.fontSize = 14
            t.foregroundColor = .black
            t.truncationMode = mode
            root.addSublayer(t)
            try Transaction.flush()
            return try render(root, width: 100, height: 30, background: .white).image
        }
        let clipped = try image(.none), end = try image(.end), middle = try image(.middle)
        #expect(clipped.difference(from: end).differing > 0)
        #expect(end.difference(from: middle).differing > 0)
    }
}
