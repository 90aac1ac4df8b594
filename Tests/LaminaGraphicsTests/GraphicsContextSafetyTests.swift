import Foundation
import LaminaGeometry
import LaminaTestSupport
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

    @Test("a dash pattern that would make more than maximumDashes dashes is drawn solid (it would never finish)")
    func tooManyDashes() throws {
        func stroke(_ lengths: [Double], to end: Double) throws -> Int {
            redPixels(try draw { c in
                c.setStrokeColor(.red); c.setLineWidth(2)
                c.setLineDash(phase: 0, lengths: lengths)
                c.move(to: Point(x: 0, y: 10)); c.addLine(to: Point(x: end, y: 10))
                c.strokePath()
            })
        }
        #expect(try stroke([1e-9, 1e-9], to: 5e6) == 64)   // 2.5e15 dashes: solid, 32 × 2 px
        #expect(try stroke([2, 2], to: 5e6) == 64)         // 1.25e6 dashes: solid
        #expect(try stroke([4, 4], to: 1e5) == 32)         // 12 500 dashes: 4 px on, 4 off
    }

    @Test("text too large for FreeType under the transform draws nothing, and text drawn afterwards still shows")
    func hugeGlyphs() throws {
        let font = Font(family: "DejaVu Serif", size: 100)
        _ = try draw { c in
            c.scaleBy(x: 30, y: 30)                          // 3000 px glyphs: FreeType fails on them
            #expect(c.draw("big", at: .zero, font: font, color: .red) == .zero)
            c.scaleBy(x: 1.0 / 30, y: 1.0 / 30)
            c.translateBy(x: 0, y: 2e19)                     // so far away that Pango's font fails too
            #expect(c.draw("far", at: .zero, font: Font(family: "DejaVu Serif", size: 14), color: .red) == .zero)
        }
        let after = try draw { c in
            _ = c.draw("MMM", at: .zero, font: Font(family: "DejaVu Serif", size: 20), color: .red)
        }
        #expect(redPixels(after) > 20)
    }

    @Test("arcs with huge angles do not reach Cairo's assertion; normal arcs are unchanged")
    func hugeAngles() throws {
        let image = try draw { c in
            c.setFillColor(.red)
            c.addArc(center: Point(x: 8, y: 8), radius: 4, startAngle: 1e300, endAngle: -1e300)   // span not finite: ignored
            c.addArc(center: Point(x: 8, y: 8), radius: 4, startAngle: -1e300, endAngle: 1e300 - 1e290)
            c.addArc(center: Point(x: 8, y: 8), radius: 4, startAngle: 1e17, endAngle: 3)
            c.fillPath()
        }
        #expect(redPixels(image) > 0)
        let plain = try draw { c in
            c.setFillColor(.red)
            c.addArc(center: Point(x: 16, y: 16), radius: 8, startAngle: 0, endAngle: .pi)
            c.fillPath()
        }
        let reduced = try draw { c in
            c.setFillColor(.red)
            c.addArc(center: Point(x: 16, y: 16), radius: 8, startAngle: 2 * .pi * 1e5, endAngle: 2 * .pi * 1e5 + .pi)
            c.fillPath()
        }
        #expect(redPixels(plain) > 50)
        #expect(abs(redPixels(plain) - redPixels(reduced)) <= 4)
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

/// Seeded calls of every drawing operation with extreme values: each sequence must return
/// (a trap ends the test process; a sequence that runs past 10 s aborts it with its seed).
@Suite("Drawing context: API fuzz")
struct GraphicsContextFuzzTests {
    private struct Random {
        var generator: SplitMix64
        init(state: UInt64) { generator = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { generator.next() }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        static let extremes: [Double] = [0, -0.0, 1, -1, 16, 0.5, 1e-300, -1e-300, 1e300, -1e300, 1e6, -1e6, 3e6, 2_097_152,
                                          .nan, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 1e19, 1e-9]
        mutating func value() -> Double { below(3) == 0 ? Double(below(64)) : Random.extremes[below(Random.extremes.count)] }
        mutating func point() -> Point { Point(x: value(), y: value()) }
        mutating func rect() -> Rect { Rect(x: value(), y: value(), width: value(), height: value()) }
    }

    @Test("3000 seeded sequences of drawing calls with extreme values return and leave the context usable")
    func fuzz() throws {
        let started = Date()
        let only = ProcessInfo.processInfo.environment["LAMINA_GC_FUZZ_SEED"].flatMap { UInt64($0) }
        let trace = only != nil || ProcessInfo.processInfo.environment["LAMINA_GC_FUZZ_TRACE"] != nil
        // (Tools/sanitize.sh stretches the watchdog's limit: instrumented code is several times slower.)
        let limit = 10 * (Double(ProcessInfo.processInfo.environment["LAMINA_WATCHDOG_SCALE"] ?? "").flatMap { $0 >= 1 ? $0 : nil } ?? 1)
        for seed in only.map({ $0..<($0 + 1) }) ?? UInt64(0)..<3000 {
            var r = Random(state: seed)
            let bitmap = try Bitmap(pixelSize: PixelSize(width: 16, height: 16))
            let c = GraphicsContext(bitmap: bitmap, scale: [1, 2, 1e-300, 1e300, .nan][r.below(5)], origin: r.point(),
                                    clip: r.below(2) == 0 ? nil : r.rect())
            let watchdog = DispatchWorkItem {
                FileHandle.standardError.write(Data("GraphicsContext fuzz: seed \(seed) did not finish within \(limit) s\n".utf8))
                abort()
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
            for _ in 0..<(1 + r.below(12)) {
                let op = r.below(22)
                if trace { FileHandle.standardError.write(Data("seed \(seed) op \(op) ctm \(c.ctm)\n".utf8)) }
                switch op {
                case 0: c.move(to: r.point())
                case 1: c.addLine(to: r.point())
                case 2: c.addCurve(to: r.point(), control1: r.point(), control2: r.point())
                case 3: c.addQuadCurve(to: r.point(), control: r.point())
                case 4: c.addArc(center: r.point(), radius: r.value(), startAngle: r.value(), endAngle: r.value(), clockwise: r.below(2) == 0)
                case 5: c.addRect(r.rect())
                case 6: c.addEllipse(in: r.rect())
                case 7: c.addRoundedRect(r.rect(), cornerRadius: r.value())
                case 8: c.setFillColor(.red); c.fillPath(using: r.below(2) == 0 ? .nonZero : .evenOdd)
                case 9: c.setLineWidth(r.value()); c.setLineDash(phase: r.value(), lengths: [r.value(), r.value()]); c.strokePath()
                case 10: c.translateBy(x: r.value(), y: r.value())
                case 11: c.scaleBy(x: r.value(), y: r.value())
                case 12: c.rotate(by: r.value())
                case 13: c.concatenate(Transform2D(a: r.value(), b: r.value(), c: r.value(), d: r.value(), tx: r.value(), ty: r.value()))
                case 14: c.clip(to: r.rect())
                case 15: c.drawLinearGradient(Gradient(colors: [.red, .blue]), start: r.point(), end: r.point())
                case 16: c.drawRadialGradient(Gradient(colors: [.red, .blue]), startCenter: r.point(), startRadius: r.value(), endCenter: r.point(), endRadius: r.value())
                case 17: c.draw(RGBAImage(width: 2, height: 2), in: r.rect(), interpolation: .high)
                case 18: _ = c.draw("fuzz me", in: r.rect(), font: Font(size: r.value()), color: .black, alignment: .justified)
                case 19: _ = c.draw("x", at: r.point(), font: Font(size: r.value()), color: .black)
                case 20: c.save(); c.fillEllipse(in: r.rect()); c.restore()
                default: c.clear(r.rect()); c.setMiterLimit(r.value())
                }
            }
            watchdog.cancel()
            c.invalidate()
        }
        // Not a timed assertion: the count shows every sequence ran.
        print("GraphicsContext fuzz: 3000 sequences in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}
