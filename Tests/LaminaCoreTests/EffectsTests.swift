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

/// Layer effects: shadows, blend modes, backdrop blurs, masks, gradients, shape and
/// replicator layers. Pixels are read back from real GL targets and compared with formulas
/// or CPU references at stated tolerances. The tests live beside their kind, one file per
/// kind in Items/ (as Sources/LaminaRender/Items/); this file holds the suite and the CPU
/// references they share.
@MainActor
@Suite("Layer effects", .isolatedTransactions, .withoutImplicitAnimations)
struct EffectsTests {
    /// erf (Abramowitz–Stegun 7.1.26 is what the shader uses; the reference uses libm's).
    static func shadowAlpha(x: Double, y: Double, rect: Rect, sigma: Double) -> Double {
        let k = 1 / (sigma * 2.0.squareRoot())
        let ax = 0.5 * (erf((rect.maxX - x) * k) - erf((rect.minX - x) * k))
        let ay = 0.5 * (erf((rect.maxY - y) * k) - erf((rect.minY - y) * k))
        return ax * ay
    }

    /// The discrete Gaussian the blur uses, normalised, radius ⌈3σ⌉.
    static func kernel(_ sigma: Double) -> [Double] {
        let r = Int((3 * sigma).rounded(.up))
        var w = (0...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = w[0] + 2 * w.dropFirst().reduce(0, +)
        w = w.map { $0 / total }
        return w
    }

    /// A separable CPU blur of an alpha plane (zero outside).
    static func blur(_ plane: [Double], width: Int, height: Int, sigma: Double) -> [Double] {
        let w = kernel(sigma), r = w.count - 1
        var h = [Double](repeating: 0, count: plane.count), out = h
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for i in -r...r where x + i >= 0 && x + i < width { s += w[abs(i)] * plane[y * width + x + i] }
                h[y * width + x] = s
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for i in -r...r where y + i >= 0 && y + i < height { s += w[abs(i)] * h[(y + i) * width + x] }
                out[y * width + x] = s
            }
        }
        return out
    }

}
