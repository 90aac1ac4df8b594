/// The pixels per point Lamina accepts, for render targets (`RenderTarget.scale`) and for
/// contents (`Layer.contentsScale`). Outside them what is derived from a scale stops being
/// representable: a 200-pixel target at 1e-308 would be 2e310 points (infinitely) wide, and
/// at 1e38 its projection overflows a Float.
public enum PixelScale {
    public static let range: ClosedRange<Double> = 1.0 / 4096 ... 4096

    /// A normal number (not 0, negative, subnormal, infinite or NaN) in `range`.
    public static func isValid(_ scale: Double) -> Bool { scale.isNormal && range.contains(scale) }

    /// What a refusal says.
    public static func requirement(got scale: Double) -> String {
        "the scale (pixels per point) must be a number from 1/4096 to 4096 (got \(scale))"
    }
}
