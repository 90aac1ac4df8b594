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

/// A 5×5 source whose every pixel has its own colour: 2×2 corners, 1-pixel edges between
/// them, and a 1×1 centre at (2, 2).
private func distinctColor(_ i: Int) -> RGBAPixel {
    RGBAPixel(r: UInt8((i * 37 + 11) % 256), g: UInt8((i * 91 + 50) % 256), b: UInt8((i * 53 + 100) % 256), a: 255)
}
private let source: RGBAImage = {
    var image = RGBAImage(width: 5, height: 5)
    for y in 0..<5 { for x in 0..<5 { image[x, y] = distinctColor(y * 5 + x) } }
    return image
}()
private let centre = Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2)

/// The source column (or row) that destination pixel `p` of `size` shows, per the
/// nine-slice rule: caps keep their size (shrunk proportionally below their sum), the
/// middle shows the centre, a zero-size centre replicates its single column. Nil where
/// the pixel's centre falls exactly on a region or texel boundary (either side is right).
private func sourceIndex(_ p: Int, size: Int, capStart: Double, capEnd: Double, texels: Int, c0: Double, cw: Double) -> Int? {
    var (a, b) = (capStart, capEnd)
    if a + b > Double(size) { let f = Double(size) / (a + b); a *= f; b *= f }
    let x = Double(p) + 0.5
    if abs(x - a) < 1e-6 || abs(x - (Double(size) - b)) < 1e-6 { return nil }
    let u: Double
    if x < a { u = x / a * c0 }
    else if x > Double(size) - b { u = c0 + cw + (x - (Double(size) - b)) / b * (1 - c0 - cw) }
    else if cw == 0 { return min(Int((c0 * Double(texels)).rounded(.down)), texels - 1) }
    else { u = c0 + (x - a) / (Double(size) - a - b) * cw }
    let t = u * Double(texels)
    if abs(t - t.rounded()) < 1e-6 && t > 0 && t < Double(texels) { return nil }
    return min(texels - 1, Int(t.rounded(.down)))
}

/// The expected source pixel for destination (x, y), or nil where ambiguous.
private func expectedPixel(_ x: Int, _ y: Int, width: Int, height: Int, capsX: (Double, Double) = (2, 2), capsY: (Double, Double) = (2, 2),
                           center: Rect = centre, image: RGBAImage = source) -> RGBAPixel? {
    guard let sx = sourceIndex(x, size: width, capStart: capsX.0, capEnd: capsX.1, texels: image.width, c0: center.minX, cw: center.width),
          let sy = sourceIndex(y, size: height, capStart: capsY.0, capEnd: capsY.1, texels: image.height, c0: center.minY, cw: center.height)
    else { return nil }
    return image[sx, sy]
}

@MainActor
private func renderNineSlice(width: Int, height: Int, center: Rect = centre, image: RGBAImage = source,
                             contentsScale: Double = 1, targetScale: Double = 1,
                             configure: (Layer) -> Void = { _ in }) throws -> (RGBAImage, FrameStatistics) {
    let root = Layer()
    let w = Double(width), h = Double(height)
    root.frame = Rect(x: 0, y: 0, width: w, height: h)
    let l = Layer()
    l.frame = Rect(x: 0, y: 0, width: w, height: h)
    l.contents = .image(ContentImage(image))
    l.contentsCenter = center
    l.contentsScale = contentsScale
    l.magnificationFilter = .nearest
    l.minificationFilter = .nearest
    configure(l)
    root.addSublayer(l)
    let (pixels, stats) = try render(root, width: w, height: h, scale: targetScale, background: .black)
    return (pixels, stats)
}

@MainActor
@Suite("Nine-slice stretching (contentsCenter)", .withoutImplicitAnimations)
struct NineSliceTests {
    @Test("corners stay, edges stretch along one axis, the centre both ways — pixel exact at every size",
          arguments: [(5, 5), (12, 7), (40, 40), (100, 9), (6, 30)])
    func exactAtSizes(width: Int, height: Int) throws {
        let (image, stats) = try renderNineSlice(width: width, height: height)
        #expect(stats.drawCalls == 1 && stats.quadsDrawn == 1, "one quad, one draw call")
        let wrong = image.mismatches { x, y in expectedPixel(x, y, width: width, height: height) }
        #expect(wrong.isEmpty, "\(width)×\(height): \(wrong)")
        // Spelled out: the four corners are the source's corners.
        for (dx, dy, sx, sy) in [(0, 0, 0, 0), (1, 1, 1, 1), (width - 1, 0, 4, 0), (0, height - 1, 0, 4), (width - 1, height - 1, 4, 4)] {
            #expect(image[dx, dy] == source[sx, sy])
        }
    }

    @Test("a zero-size centre replicates the single column and row at its position")
    func zeroCentre() throws {
        let zero = Rect(x: 0.4, y: 0.4, width: 0, height: 0)
        let (image, _) = try renderNineSlice(width: 20, height: 11, center: zero)
        let wrong = image.mismatches { x, y in expectedPixel(x, y, width: 20, height: 11, capsX: (2, 3), capsY: (2, 3), center: zero) }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(image[10, 0] == source[2, 0] && image[0, 6] == source[0, 2] && image[10, 6] == source[2, 2])
    }

    @Test("below the caps' size the caps shrink proportionally")
    func capsShrink() throws {
        // 3 px across caps of 2 + 2: each shrinks to 1.5 and shows its whole cap squeezed.
        let (image, _) = try renderNineSlice(width: 3, height: 3)
        #expect(image[0, 0] == source[0, 0] && image[2, 0] == source[4, 0] && image[2, 2] == source[4, 4])
        let wrong = image.mismatches { x, y in expectedPixel(x, y, width: 3, height: 3) }
        #expect(wrong.isEmpty, "\(wrong)")
        // Unequal caps shrink in proportion: 1 + 3 points into 3 → 0.75 + 2.25.
        let uneven = Rect(x: 0.2, y: 0.2, width: 0.2, height: 0.2)
        let (small, _) = try renderNineSlice(width: 3, height: 3, center: uneven)
        let wrongSmall = small.mismatches { x, y in expectedPixel(x, y, width: 3, height: 3, capsX: (1, 3), capsY: (1, 3), center: uneven) }
        #expect(wrongSmall.isEmpty, "\(wrongSmall)")
        #expect(small[0, 0] == source[0, 0] && small[2, 2] == source[4, 4] && small[2, 0] == source[4, 0])
    }

    @Test("contentsScale 2: a 2× image has caps of half its pixels in points")
    func contentsScaleTwo() throws {
        // The source at 2× (each pixel doubled), shown at contentsScale 2 on a 2× target: the
        // caps are 2 points = 4 target pixels, exactly the 1× picture doubled.
        var doubled = RGBAImage(width: 10, height: 10)
        for y in 0..<10 { for x in 0..<10 { doubled[x, y] = source[x / 2, y / 2] } }
        let (image, _) = try renderNineSlice(width: 15, height: 10, image: doubled, contentsScale: 2, targetScale: 2)
        #expect(image.width == 30 && image.height == 20)
        let (oneX, _) = try renderNineSlice(width: 15, height: 10)
        let wrong = image.mismatches { x, y in oneX[x / 2, y / 2] }
        #expect(wrong.isEmpty, "\(wrong)")
        // At contentsScale 1 the same 10-pixel image has 4-point caps: different.
        let (asOneX, _) = try renderNineSlice(width: 15, height: 10, image: doubled, contentsScale: 1, targetScale: 2)
        #expect(asOneX.difference(from: image).differing > 0)
    }

    @Test("nine-slice applies inside contentsRect")
    func withContentsRect() throws {
        // The 5×5 source in the top-left of a 10×10 texture full of red.
        var big = RGBAImage(width: 10, height: 10, fill: RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        for y in 0..<5 { for x in 0..<5 { big[x, y] = source[x, y] } }
        let (image, _) = try renderNineSlice(width: 12, height: 7, image: big) { $0.contentsRect = Rect(x: 0, y: 0, width: 0.5, height: 0.5) }
        let wrong = image.mismatches { x, y in expectedPixel(x, y, width: 12, height: 7) }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("stretching a 32×32 image to 1000×400 uploads nothing after the first frame and costs one draw call")
    func cost() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 1000, height: 400))
        let root = rootLayer(width: 1000, height: 400)
        let l = Layer()
        l.frame = Rect(x: 0, y: 0, width: 100, height: 40)
        l.contents = .image(ContentImage(RGBAImage(width: 32, height: 32, fill: blue)))
        l.contentsCenter = Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        root.addSublayer(l)
        let first = try compositor.render(root, to: target)
        #expect(first.textureBytesUploaded == (32 + 2) * (32 + 2) * 4)   // in the atlas with its border
        l.frame = Rect(x: 0, y: 0, width: 1000, height: 400)
        let stretched = try compositor.render(root, to: target)
        #expect(stretched.textureBytesUploaded == 0)
        #expect(stretched.drawCalls == 1 && stretched.quadsDrawn == 1)
    }

    @Test("drawn content stretches too: resizing with scaleToFill + contentStretch draws nothing; .redraw draws once per commit")
    func drawCounts() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 100))
        let root = rootLayer(width: 200, height: 100)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        final class Button: Layer {
            override func draw(in context: GraphicsContext) {
                context.setFillColor(.blue)
                context.fill(bounds)
                context.setFillColor(.red)
                context.fill(Rect(x: 0, y: 0, width: 4, height: 4))   // a corner mark that must not stretch
            }
        }
        let button = Button()
        button.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        button.apply(contentMode: .scaleToFill, contentStretch: Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2))
        button.setNeedsDisplay()
        root.addSublayer(button)
        try Transaction.flush()
        #expect(button.displayCount == 1)
        let uploaded = device.uploadedBytes
        button.frame = Rect(x: 0, y: 0, width: 180, height: 90)
        try Transaction.flush()
        #expect(button.displayCount == 1, "no redraw")
        #expect(device.uploadedBytes == uploaded, "no upload")
        let image = try target.readPixels()
        #expect(image[1, 1] == red && image[3, 3] == red && image[5, 5] == blue, "the 4-point mark kept its size")
        #expect(image[170, 80] == blue)
        button.apply(contentMode: .redraw)
        button.frame = Rect(x: 0, y: 0, width: 100, height: 50)
        try Transaction.flush()
        button.frame = Rect(x: 0, y: 0, width: 120, height: 50)
        try Transaction.flush()
        #expect(button.displayCount == 3, "one draw per commit")
        #expect(button.contentsCenter == Rect(x: 0, y: 0, width: 1, height: 1), ".redraw ignores contentStretch")
    }

    @Test("content modes map to gravities; pinned modes ignore contentStretch, scaling modes honour it")
    func contentModes() {
        let expected: [ContentMode: ContentsGravity] = [
            .scaleToFill: .resize, .scaleAspectFit: .resizeAspect, .scaleAspectFill: .resizeAspectFill, .redraw: .resize,
            .center: .center, .top: .top, .bottom: .bottom, .left: .left, .right: .right,
            .topLeft: .topLeft, .topRight: .topRight, .bottomLeft: .bottomLeft, .bottomRight: .bottomRight,
        ]
        #expect(expected.count == ContentMode.allCases.count)
        let stretch = Rect(x: 0.3, y: 0.3, width: 0.4, height: 0.4)
        for mode in ContentMode.allCases {
            let l = Layer()
            l.apply(contentMode: mode, contentStretch: stretch)
            #expect(l.contentsGravity == expected[mode], "\(mode)")
            let honours = [.scaleToFill, .scaleAspectFit, .scaleAspectFill].contains(mode)
            #expect(l.contentsCenter == (honours ? stretch : Rect(x: 0, y: 0, width: 1, height: 1)), "\(mode)")
            #expect(l.needsDisplayOnBoundsChange == (mode == .redraw))
        }
    }

    @Test("each content mode places a 40×20 snapshot analytically in a 100×80 view", arguments: ContentMode.allCases)
    func contentModePlacement(_ mode: ContentMode) throws {
        let root = rootLayer()
        let l = Layer()
        l.frame = Rect(x: 50, y: 60, width: 100, height: 80)
        l.backgroundColor = .black
        l.contents = .image(ContentImage(RGBAImage(width: 40, height: 20, fill: green)))
        l.apply(contentMode: mode)
        l.magnificationFilter = .nearest
        root.addSublayer(l)
        let (image, _) = try render(root)
        let b = Rect(x: 50, y: 60, width: 100, height: 80)
        // The mode's gravity (the mapping is checked in `contentModes`) places it.
        let expected = gravityPlacement(mode.contentsGravity)
        let wrong = image.mismatches { x, y in
            let c = Point(x: Double(x) + 0.5, y: Double(y) + 0.5)
            if expected.contains(c) { return green }
            return b.contains(c) ? black : white
        }
        #expect(wrong.isEmpty, "\(mode): \(wrong)")
    }
}
