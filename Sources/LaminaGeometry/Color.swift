/// An RGBA colour with components in 0…1, sRGB-encoded, *not* premultiplied.
/// Lamina blends premultiplied: use `premultiplied` when handing it to the GPU.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    /// 8-bit components, as in `Color(r8: 255, g8: 128, b8: 0)`.
    public init(r8: UInt8, g8: UInt8, b8: UInt8, a8: UInt8 = 255) {
        self.init(red: Double(r8) / 255, green: Double(g8) / 255, blue: Double(b8) / 255, alpha: Double(a8) / 255)
    }

    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let red = Color(red: 1, green: 0, blue: 0)
    public static let green = Color(red: 0, green: 1, blue: 0)
    public static let blue = Color(red: 0, green: 0, blue: 1)
    public static let yellow = Color(red: 1, green: 1, blue: 0)
    public static let cyan = Color(red: 0, green: 1, blue: 1)
    public static let magenta = Color(red: 1, green: 0, blue: 1)

    /// Every component is finite (not infinite, not a number).
    public var isFinite: Bool { red.isFinite && green.isFinite && blue.isFinite && alpha.isFinite }

    public func withAlpha(_ a: Double) -> Color { Color(red: red, green: green, blue: blue, alpha: a) }

    /// Premultiplied components (r·a, g·a, b·a, a), as the GPU blends them.
    public var premultiplied: (r: Double, g: Double, b: Double, a: Double) {
        (red * alpha, green * alpha, blue * alpha, alpha)
    }

    /// The premultiplied 8-bit pixel this colour becomes on an RGBA8 target.
    public var premultipliedPixel: RGBAPixel {
        let p = premultiplied
        func q(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        return RGBAPixel(r: q(p.r), g: q(p.g), b: q(p.b), a: q(p.a))
    }

    public var description: String { "rgba(\(red), \(green), \(blue), \(alpha))" }
}
