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

// Blend modes (Sources/LaminaRender/Items/BlendEffect.swift).
extension EffectsTests {
    @Test("each compositingFilter equals its formula on premultiplied colour (W3C compositing), translucent source and backdrop, within 1/255",
          arguments: BlendMode.allCases)
    func blendMode(mode: BlendMode) throws {
        let back = Color(red: 0.8, green: 0.3, blue: 0.55, alpha: 0.75)
        let front = Color(red: 0.2, green: 0.7, blue: 0.9, alpha: 0.6)
        func scene(_ filter: BlendMode?, front show: Bool) -> Layer {
            let root = rootLayer()
            root.addSublayer(solid(Rect(x: 20, y: 20, width: 100, height: 100), back))
            let f = solid(Rect(x: 60, y: 60, width: 100, height: 100), front)
            f.compositingFilter = filter
            f.isHidden = !show
            root.addSublayer(f)
            return root
        }
        let (image, _) = try render(scene(mode, front: true), background: .clear)
        let (backdrop, _) = try render(scene(nil, front: false), background: .clear)
        func unit(_ p: RGBAPixel) -> (Double, Double, Double, Double) { (Double(p.r) / 255, Double(p.g) / 255, Double(p.b) / 255, Double(p.a) / 255) }
        let s = front.premultiplied
        for (x, y) in [(90, 90), (140, 140), (40, 40)] {
            let d = unit(backdrop[x, y])
            let inFront = x >= 60 && y >= 60
            let e = inFront ? mode.apply((s.r, s.g, s.b, s.a), over: d) : d
            let got = unit(image[x, y])
            let worst = max(abs(got.0 - e.0), abs(got.1 - e.1), abs(got.2 - e.2), abs(got.3 - e.3)) * 255
            #expect(worst <= 1.01, "\(mode) at (\(x), \(y)): got \(image[x, y]), expected \(e) (backdrop \(backdrop[x, y]))")
        }
    }
}
