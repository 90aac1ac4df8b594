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

// Backdrop blurs (Sources/LaminaRender/Items/BackdropItem.swift).
extension EffectsTests {
    @Test("a backdrop blur equals the CPU blur of what lies behind the layer, inside its bounds (σ 4 within 2/255; σ 10, downsampled, within 4/255), also on a layer that is a group (opacity 0.99, a background: within 3/255 of the same composited on the CPU)",
          arguments: [(4.0, false), (10.0, false), (4.0, true)])
    func backdropBlur(radius: Double, group: Bool) throws {
        var stripes = RGBAImage(width: 200, height: 200)
        for y in 0..<200 { for x in 0..<200 {
            stripes[x, y] = (x / 7 + y / 11) % 2 == 0 ? px(230, 40, 30) : px(20, 60, 200)
        } }
        func scene(glass: Bool) -> Layer {
            let root = rootLayer()
            let back = Layer()
            back.frame = Rect(x: 0, y: 0, width: 200, height: 200)
            back.contents = .image(ContentImage(stripes))
            root.addSublayer(back)
            if glass {
                let g = Layer()
                g.frame = Rect(x: 60, y: 50, width: 90, height: 80)
                g.backgroundFilters = [.gaussianBlur(radius: radius)]
                if group {
                    // Two items (the backdrop and a translucent white background) at opacity
                    // 0.99: a group, whose backdrop is drawn behind its image.
                    g.opacity = 0.99
                    g.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.2)
                }
                root.addSublayer(g)
            }
            return root
        }
        let (image, stats) = try render(scene(glass: true))
        #expect(stats.blurs == 1)
        #expect(!group || stats.offscreenPasses == 1, "the glass is a group, with an image: \(stats)")
        let (behind, _) = try render(scene(glass: false))
        var worst = 0.0
        for channel in 0..<3 {
            var plane = [Double](repeating: 0, count: 200 * 200)
            for y in 0..<200 { for x in 0..<200 {
                let p = behind[x, y]
                plane[y * 200 + x] = Double(channel == 0 ? p.r : channel == 1 ? p.g : p.b)
            } }
            let blurred = Self.blur(plane, width: 200, height: 200, sigma: radius)
            for y in 51..<129 { for x in 61..<149 {
                let p = image[x, y]
                let got = Double(channel == 0 ? p.r : channel == 1 ? p.g : p.b)
                var expected = blurred[y * 200 + x]
                if group {
                    // The backdrop at 0.99 over what is behind, then the white at 0.2 × 0.99.
                    let q = behind[x, y], under = Double(channel == 0 ? q.r : channel == 1 ? q.g : q.b)
                    expected = (0.99 * expected + 0.01 * under) * (1 - 0.198) + 255 * 0.198
                }
                worst = max(worst, abs(got - expected))
            } }
        }
        // (At opacity 0.99 the blur's pixels are 1 % of the way back to what is behind.)
        #expect(worst <= (radius > GaussianBlur.maximumDirectSigma ? 4 : group ? 3 : 2), "largest difference \(worst)/255")
        #expect(image[30, 30] == behind[30, 30] && image[170, 170] == behind[170, 170], "outside the layer nothing changes")
    }
}
