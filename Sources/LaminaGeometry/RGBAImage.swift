/// One premultiplied RGBA8 pixel.
public struct RGBAPixel: Hashable, Sendable, CustomStringConvertible {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8) { self.r = r; self.g = g; self.b = b; self.a = a }

    /// The largest difference of any channel between two pixels.
    public func maxChannelDifference(_ o: RGBAPixel) -> Int {
        Swift.max(abs(Int(r) - Int(o.r)), abs(Int(g) - Int(o.g)), abs(Int(b) - Int(o.b)), abs(Int(a) - Int(o.a)))
    }

    public var description: String { "RGBA(\(r), \(g), \(b), \(a))" }
}

/// A CPU image: RGBA8, premultiplied alpha, rows top-first, tightly packed
/// (`width * 4` bytes a row). What readback returns and what PNG files decode to.
public struct RGBAImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes, R, G, B, A per pixel, top row first.
    public var bytes: [UInt8]

    /// `bytes` must hold exactly `width * height * 4` bytes: anything else is a programming
    /// error (the caller computed the buffer), a trap whose message release builds print.
    public init(width: Int, height: Int, bytes: [UInt8]) {
        guard width >= 0, height >= 0, RGBAImage.byteCount(width, height) == bytes.count else {
            fatalError("RGBAImage: \(bytes.count) bytes do not make a \(width)×\(height) RGBA8 image")
        }
        self.width = width; self.height = height; self.bytes = bytes
    }

    /// `width * height * 4`, or nil when it overflows.
    private static func byteCount(_ width: Int, _ height: Int) -> Int? {
        let (wh, o1) = width.multipliedReportingOverflow(by: height)
        let (n, o2) = wh.multipliedReportingOverflow(by: 4)
        return o1 || o2 ? nil : n
    }

    /// An image filled with one pixel value.
    /// A negative or overflowing size is a programming error (a trap with its message).
    public init(width: Int, height: Int, fill: RGBAPixel = RGBAPixel(r: 0, g: 0, b: 0, a: 0)) {
        guard width >= 0, height >= 0, let count = RGBAImage.byteCount(width, height) else {
            fatalError("RGBAImage: no \(width)×\(height) RGBA8 image can exist")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        for i in stride(from: 0, to: bytes.count, by: 4) {
            bytes[i] = fill.r; bytes[i + 1] = fill.g; bytes[i + 2] = fill.b; bytes[i + 3] = fill.a
        }
        self.init(width: width, height: height, bytes: bytes)
    }

    public var pixelSize: PixelSize { PixelSize(width: width, height: height) }

    /// A pixel outside the image is a programming error, as an array index out of range (a
    /// trap whose message release builds print).
    public subscript(x: Int, y: Int) -> RGBAPixel {
        get {
            guard x >= 0 && x < width && y >= 0 && y < height else { fatalError("pixel (\(x), \(y)) outside \(width)×\(height)") }
            let i = (y * width + x) * 4
            return RGBAPixel(r: bytes[i], g: bytes[i + 1], b: bytes[i + 2], a: bytes[i + 3])
        }
        set {
            guard x >= 0 && x < width && y >= 0 && y < height else { fatalError("pixel (\(x), \(y)) outside \(width)×\(height)") }
            let i = (y * width + x) * 4
            bytes[i] = newValue.r; bytes[i + 1] = newValue.g; bytes[i + 2] = newValue.b; bytes[i + 3] = newValue.a
        }
    }

    /// Per-pixel comparison: how many pixels differ by more than `tolerance` in any
    /// channel, and the largest channel difference seen. Images of different sizes differ
    /// everywhere: (the larger one's pixel count, 255).
    public func difference(from other: RGBAImage, tolerance: Int = 0) -> (differing: Int, maxDifference: Int) {
        guard width == other.width && height == other.height else {
            return (Swift.max(bytes.count, other.bytes.count) / 4, 255)
        }
        var differing = 0, maxDiff = 0
        bytes.withUnsafeBufferPointer { a in
            other.bytes.withUnsafeBufferPointer { b in
                var i = 0
                while i < a.count {
                    var d = 0
                    for c in 0..<4 { d = Swift.max(d, abs(Int(a[i + c]) - Int(b[i + c]))) }
                    if d > tolerance { differing += 1 }
                    maxDiff = Swift.max(maxDiff, d)
                    i += 4
                }
            }
        }
        return (differing, maxDiff)
    }
}
