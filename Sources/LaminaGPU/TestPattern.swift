import LaminaGeometry

/// A recognisable test pattern drawn through the shader pipeline: colour bars
/// (solid-colour shader), a nearest-filtered checkerboard and a linear grey ramp
/// (texture shader, uploaded textures), a rotated translucent square (transform and
/// blending), and corner markers that show orientation: red top-left, green top-right,
/// blue bottom-left, white bottom-right.
public enum TestPattern {
    public static let barColors: [Color] = [.white, .yellow, .cyan, .green, .magenta, .red, .blue, .black]
    public static let background = Color(red: 0.2, green: 0.2, blue: 0.2)

    /// The size of each corner marker, in points.
    public static func markerSize(for size: Size) -> Double { (min(size.width, size.height) / 16).rounded(.down) }

    /// Draws the pattern over the whole target; returns the draw calls made.
    @discardableResult
    public static func draw(on target: RenderTarget) throws -> Int {
        let device = target.device
        let size = target.size
        let pass = try device.beginRenderPass(on: target, clear: background)

        // Colour bars across the top two thirds.
        let barHeight = (size.height * 2 / 3).rounded()
        let barWidth = size.width / Double(barColors.count)
        for (i, color) in barColors.enumerated() {
            try pass.fill(Rect(x: Double(i) * barWidth, y: 0, width: barWidth, height: barHeight), color: color)
        }

        // Bottom third: checkerboard, grey ramp, rotated translucent square.
        let bottom = Rect(x: 0, y: barHeight, width: size.width, height: size.height - barHeight)
        let cell = bottom.width / 3
        var checker = RGBAImage(width: 8, height: 8)
        for y in 0..<8 { for x in 0..<8 {
            checker[x, y] = (x + y) % 2 == 0 ? RGBAPixel(r: 255, g: 255, b: 255, a: 255) : RGBAPixel(r: 0, g: 0, b: 0, a: 255)
        } }
        let checkerTexture = try device.makeTexture(pixelSize: checker.pixelSize, pixels: checker)
        defer { checkerTexture.release() }
        try pass.draw(checkerTexture, in: Rect(x: 0, y: bottom.minY, width: cell, height: bottom.height),
                      minFilter: .nearest, magFilter: .nearest)

        var ramp = RGBAImage(width: 256, height: 1)
        for x in 0..<256 { ramp[x, 0] = RGBAPixel(r: UInt8(x), g: UInt8(x), b: UInt8(x), a: 255) }
        let rampTexture = try device.makeTexture(pixelSize: ramp.pixelSize, pixels: ramp)
        defer { rampTexture.release() }
        try pass.draw(rampTexture, in: Rect(x: cell, y: bottom.minY, width: cell, height: bottom.height))

        let side = min(cell, bottom.height) * 0.6
        let center = Point(x: cell * 2.5, y: bottom.midY)
        let spin = Transform3D(translationX: -center.x, y: -center.y)
            .concatenating(Transform3D(rotationAngle: .pi / 6, x: 0, y: 0, z: 1))
            .concatenating(Transform3D(translationX: center.x, y: center.y))
        try pass.fill(Rect(x: center.x - side / 2, y: center.y - side / 2, width: side, height: side),
                      color: Color(red: 1, green: 0.5, blue: 0, alpha: 0.75), transform: spin)

        // Orientation markers.
        let m = markerSize(for: size)
        try pass.fill(Rect(x: 0, y: 0, width: m, height: m), color: .red)
        try pass.fill(Rect(x: size.width - m, y: 0, width: m, height: m), color: .green)
        try pass.fill(Rect(x: 0, y: size.height - m, width: m, height: m), color: .blue)
        try pass.fill(Rect(x: size.width - m, y: size.height - m, width: m, height: m), color: .white)
        pass.submit()
        return pass.drawCalls
    }
}
