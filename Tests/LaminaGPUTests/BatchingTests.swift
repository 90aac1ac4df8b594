import CGLES
import Foundation
import LaminaGeometry
import Testing
@testable import LaminaGPU

// MARK: The reference: the per-quad path Lamina drew with before batching

/// The shared vertex stage of the old path (`quad.vert`), with the source rectangle in
/// its own uniform (`draw(with:)` sets `u_texRect` to the unit square itself).
private let referenceVertex = """
#version 300 es
precision highp float;
layout(location = 0) in vec2 a_position;
uniform mat4 u_transform;
uniform vec4 u_source;
out vec2 v_texCoord;
out vec2 v_local;
void main() {
    v_texCoord = u_source.xy + a_position * u_source.zw;
    v_local = a_position;
    gl_Position = u_transform * vec4(a_position, 0.0, 1.0);
}
"""

/// The old `texture.frag`, verbatim.
private let referenceTexture = """
#version 300 es
precision mediump float;
uniform sampler2D u_texture;
uniform float u_alpha;
in vec2 v_texCoord;
out vec4 fragColor;
void main() {
    fragColor = texture(u_texture, v_texCoord) * u_alpha;
}
"""

/// The old `rrect.frag`, verbatim.
private let referenceRoundedRect = """
#version 300 es
precision highp float;
uniform vec4 u_color;
uniform vec2 u_size;
uniform float u_radius;
uniform float u_borderWidth;
uniform bool u_clip;
in vec2 v_local;
out vec4 fragColor;
float roundedRectDistance(vec2 p, vec2 halfSize, float radius) {
    float r = min(radius, min(halfSize.x, halfSize.y));
    vec2 q = abs(p) - halfSize + r;
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - r;
}
void main() {
    vec2 halfSize = 0.5 * u_size;
    vec2 p = v_local * u_size - halfSize;
    float d = roundedRectDistance(p, halfSize, u_radius);
    vec2 px = dFdx(p), py = dFdy(p);
    float pixel = max(sqrt(0.5 * (dot(px, px) + dot(py, py))), 1e-5);
    float coverage = clamp(0.5 - d / pixel, 0.0, 1.0);
    if (u_borderWidth > 0.0) {
        vec2 innerHalf = halfSize - u_borderWidth;
        if (innerHalf.x > 0.0 && innerHalf.y > 0.0) {
            float inner = roundedRectDistance(p, innerHalf, max(u_radius - u_borderWidth, 0.0));
            coverage *= clamp(0.5 + inner / pixel, 0.0, 1.0);
        }
    }
    if (u_clip) {
        if (coverage < 0.5) discard;
        fragColor = vec4(0.0);
        return;
    }
    fragColor = u_color * coverage;
}
"""

/// The old `nineslice.frag`, verbatim: the per-pixel mapping the nine quads replace.
private let referenceNineSlice = """
#version 300 es
precision highp float;
uniform sampler2D u_texture;
uniform float u_alpha;
uniform vec2 u_destSize;
uniform vec4 u_caps;
uniform vec4 u_center;
uniform vec4 u_sourceRect;
uniform vec2 u_texels;
in vec2 v_local;
out vec4 fragColor;
float slice(float p, float size, float capStart, float capEnd, float c0, float cw, float texels) {
    if (p < capStart) return p / capStart * c0;
    if (p > size - capEnd) return (c0 + cw) + (p - (size - capEnd)) / capEnd * (1.0 - c0 - cw);
    if (cw <= 0.0) {
        float column = clamp(floor(c0 * texels), 0.0, texels - 1.0);
        return (column + 0.5) / texels;
    }
    float middle = size - capStart - capEnd;
    return c0 + (middle > 0.0 ? (p - capStart) / middle : 0.5) * cw;
}
void main() {
    vec2 p = v_local * u_destSize;
    vec2 unit = vec2(slice(p.x, u_destSize.x, u_caps.x, u_caps.z, u_center.x, u_center.z, u_texels.x),
                     slice(p.y, u_destSize.y, u_caps.y, u_caps.w, u_center.y, u_center.w, u_texels.y));
    fragColor = texture(u_texture, u_sourceRect.xy + unit * u_sourceRect.zw) * u_alpha;
}
"""

/// Draws one quad per draw call with the old shaders and uniforms, through
/// `RenderPass.draw(with:)`: what batching must reproduce.
private struct Reference {
    let device: GPUDevice
    let texture: Program, roundedRect: Program, nineSlice: Program, solid: Program

    init(_ device: GPUDevice) throws {
        self.device = device
        texture = try device.makeProgram(vertexSource: referenceVertex, fragmentSource: referenceTexture)
        roundedRect = try device.makeProgram(vertexSource: referenceVertex, fragmentSource: referenceRoundedRect)
        nineSlice = try device.makeProgram(vertexSource: referenceVertex, fragmentSource: referenceNineSlice)
        solid = try device.program(vertex: "quad.vert", fragment: "solid.frag")
    }

    private func bind(_ t: Texture, _ minFilter: TextureFilter, _ magFilter: TextureFilter) {
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), t.glName)
        glBindSampler(0, device.sampler(min: minFilter, mag: magFilter).glName)
    }

    func fill(_ pass: RenderPass, _ rect: Rect, _ color: Color, transform: Transform3D = .identity) {
        pass.draw(with: solid, in: rect, transform: transform) { p in
            let c = color.premultiplied
            glUniform4f(p.uniformLocation("u_color"), GLfloat(c.r), GLfloat(c.g), GLfloat(c.b), GLfloat(c.a))
        }
    }

    func draw(_ pass: RenderPass, _ t: Texture, in rect: Rect, source: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
              alpha: Double = 1, minFilter: TextureFilter = .linear, magFilter: TextureFilter = .linear,
              transform: Transform3D = .identity) {
        pass.draw(with: texture, in: rect, transform: transform) { p in
            bind(t, minFilter, magFilter)
            glUniform1i(p.uniformLocation("u_texture"), 0)
            glUniform1f(p.uniformLocation("u_alpha"), GLfloat(alpha))
            glUniform4f(p.uniformLocation("u_source"), GLfloat(source.origin.x), GLfloat(source.origin.y),
                        GLfloat(source.size.width), GLfloat(source.size.height))
        }
    }

    func roundedRect(_ pass: RenderPass, _ rect: Rect, radius: Double, border: Double, color: Color,
                     transform: Transform3D = .identity) {
        pass.draw(with: roundedRect, in: rect, transform: transform) { p in
            let c = color.premultiplied
            glUniform4f(p.uniformLocation("u_color"), GLfloat(c.r), GLfloat(c.g), GLfloat(c.b), GLfloat(c.a))
            glUniform2f(p.uniformLocation("u_size"), GLfloat(abs(rect.size.width)), GLfloat(abs(rect.size.height)))
            glUniform1f(p.uniformLocation("u_radius"), GLfloat(max(0, radius)))
            glUniform1f(p.uniformLocation("u_borderWidth"), GLfloat(max(0, border)))
            glUniform1i(p.uniformLocation("u_clip"), 0)
        }
    }

    /// The old `drawNineSlice`, uniform for uniform.
    func nineSlice(_ pass: RenderPass, _ t: Texture, in rect: Rect, source s: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                   center: Rect, contentSize: Size, alpha: Double = 1, minFilter: TextureFilter = .linear,
                   magFilter: TextureFilter = .linear, transform: Transform3D = .identity) {
        let dest = Size(width: abs(rect.size.width), height: abs(rect.size.height))
        let c = center.standardized
        func caps(_ start: Double, _ end: Double, _ size: Double) -> (Double, Double) {
            let total = start + end
            guard total > size, total > 0 else { return (start, end) }
            return (start * size / total, end * size / total)
        }
        let (left, right) = caps(c.minX * contentSize.width, (1 - c.maxX) * contentSize.width, dest.width)
        let (top, bottom) = caps(c.minY * contentSize.height, (1 - c.maxY) * contentSize.height, dest.height)
        pass.draw(with: nineSlice, in: rect, transform: transform) { p in
            bind(t, minFilter, magFilter)
            glUniform1i(p.uniformLocation("u_texture"), 0)
            glUniform1f(p.uniformLocation("u_alpha"), GLfloat(alpha))
            glUniform2f(p.uniformLocation("u_destSize"), GLfloat(dest.width), GLfloat(dest.height))
            glUniform4f(p.uniformLocation("u_caps"), GLfloat(left), GLfloat(top), GLfloat(right), GLfloat(bottom))
            glUniform4f(p.uniformLocation("u_center"), GLfloat(c.minX), GLfloat(c.minY), GLfloat(c.width), GLfloat(c.height))
            glUniform4f(p.uniformLocation("u_sourceRect"), GLfloat(s.origin.x), GLfloat(s.origin.y), GLfloat(s.size.width), GLfloat(s.size.height))
            glUniform2f(p.uniformLocation("u_texels"), GLfloat(abs(s.size.width) * Double(t.pixelSize.width)),
                        GLfloat(abs(s.size.height) * Double(t.pixelSize.height)))
            glUniform4f(p.uniformLocation("u_source"), 0, 0, 1, 1)
        }
    }
}

// MARK: Helpers

/// Renders into a new target of `size` pixels (cleared to `clear`); returns the pixels and
/// the pass's draw calls (the clear is not a draw call).
private func render(_ d: GPUDevice, _ size: PixelSize, clear: Color = .black,
                    _ body: (RenderPass) throws -> Void) throws -> (image: RGBAImage, drawCalls: Int) {
    let t = try OffscreenTarget(device: d, pixelSize: size)
    defer { t.release() }
    let pass = try d.beginRenderPass(on: t, clear: clear)
    try body(pass)
    pass.submit()
    return (try t.readPixels(), pass.drawCalls)
}

/// A premultiplied test image: every pixel its own colour, alpha `alpha` (0…255).
private func distinctImage(width: Int, height: Int, seed: Int, alpha: Int = 255) -> RGBAImage {
    var image = RGBAImage(width: width, height: height)
    for y in 0..<height { for x in 0..<width {
        let i = y * width + x + seed * 97
        func channel(_ k: Int) -> UInt8 { UInt8(((i * k + seed * 31) % 256) * alpha / 255) }
        image[x, y] = RGBAPixel(r: channel(37), g: channel(91), b: channel(53), a: UInt8(alpha))
    } }
    return image
}

/// A rotation about the y axis through (cx, cy) seen with perspective (eye at `distance`).
private func perspectiveTilt(_ angle: Double, cx: Double, cy: Double, distance: Double = 300) -> Transform3D {
    var perspective = Transform3D.identity
    perspective.m34 = -1 / distance
    return Transform3D(translationX: -cx, y: -cy)
        .concatenating(Transform3D(rotationAngle: angle, x: 0, y: 1, z: 0))
        .concatenating(perspective)
        .concatenating(Transform3D(translationX: cx, y: cy))
}

private func spin(_ angle: Double, cx: Double, cy: Double) -> Transform3D {
    Transform3D(translationX: -cx, y: -cy)
        .concatenating(Transform3D(rotationAngle: angle, x: 0, y: 0, z: 1))
        .concatenating(Transform3D(translationX: cx, y: cy))
}

private let unit = Rect(x: 0, y: 0, width: 1, height: 1)

/// Where a nine-slice's map from destination to source jumps — the seams around a
/// zero-size centre, or between caps that fill the axis — a pixel whose centre lies on the
/// seam may show either side (NineSliceTests' rule): the old shader compared an
/// interpolated position with the seam (and sent an exact hit to the centre's middle),
/// the rasterizer decides by the edge, snapped to its sub-pixel grid (1/256 px here).
/// Those pixels, within 0.01 pt of such a seam, are left out of the comparison. So are,
/// with nearest filtering, pixels whose centre maps within 0.01 texel of a texel's edge:
/// which texel they show depends on the last bit of the interpolated coordinate (the old
/// shader computed it per pixel, the geometry interpolates it per piece; seen on an NVIDIA
/// H200 at the edge of a rotated 40×40 slice, where the centre mapped to texel 3.000).
private struct NineSliceJumps {
    var xs: [Double], ys: [Double]
    var rect: Rect
    /// Target points → the rectangle's local points (the transforms here are 2D affine).
    var inverse: (Double, Double) -> (Double, Double)
    /// Local points → content texels, per axis (nil: not checked, linear filtering).
    var texelX: ((Double) -> Double)?, texelY: ((Double) -> Double)?

    func ambiguous(_ px: Int, _ py: Int) -> Bool {
        let (x, y) = inverse(Double(px) + 0.5, Double(py) + 0.5)
        let (lx, ly) = (x - rect.origin.x, y - rect.origin.y)
        func onTexelEdge(_ map: ((Double) -> Double)?, _ v: Double) -> Bool {
            guard let t = map?(v) else { return false }
            return abs(t - t.rounded()) < 0.01
        }
        return xs.contains { abs(lx - $0) < 0.01 } || ys.contains { abs(ly - $0) < 0.01 } || onTexelEdge(texelX, lx) || onTexelEdge(texelY, ly)
    }
}

private func nineSliceJumps(rect: Rect, center: Rect, contentSize: Size, transform t: Transform3D, nearest: Bool = false) -> NineSliceJumps {
    func jumps(_ size: Double, _ capStart: Double, _ capEnd: Double, _ centerSize: Double) -> [Double] {
        var (a, b) = (capStart, capEnd)
        if a + b > size { (a, b) = (a * size / (a + b), b * size / (a + b)) }
        let continuous = centerSize > 0 && size - a - b > 1e-9
        return continuous ? [] : [a, size - b]
    }
    /// The nine-slice map of one axis, local points → content units (= texels here: one
    /// content point per texel): caps as they are (shrunk in proportion when they do not
    /// fit), the centre stretched over the rest.
    func texels(_ size: Double, _ content: Double, _ capStart: Double, _ capEnd: Double) -> (Double) -> Double {
        let shrink = capStart + capEnd > size ? size / (capStart + capEnd) : 1
        let (a, b) = (capStart * shrink, capEnd * shrink)
        return { d in
            if d <= a { return d / shrink }
            if d >= size - b { return content - (size - d) / shrink }
            // A zero-size centre repeats one exact column (by definition, not by rounding).
            let stretched = content - capStart - capEnd
            return stretched > 0 ? capStart + (d - a) / (size - a - b) * stretched : .nan
        }
    }
    let c = center.standardized
    let det = t.m11 * t.m22 - t.m12 * t.m21
    return NineSliceJumps(
        xs: jumps(rect.width, c.minX * contentSize.width, (1 - c.maxX) * contentSize.width, c.width),
        ys: jumps(rect.height, c.minY * contentSize.height, (1 - c.maxY) * contentSize.height, c.height),
        rect: rect,
        inverse: { x, y in
            let (dx, dy) = (x - t.m41, y - t.m42)
            return ((dx * t.m22 - dy * t.m21) / det, (dy * t.m11 - dx * t.m12) / det)
        },
        texelX: nearest ? texels(rect.width, contentSize.width, c.minX * contentSize.width, (1 - c.maxX) * contentSize.width) : nil,
        texelY: nearest ? texels(rect.height, contentSize.height, c.minY * contentSize.height, (1 - c.maxY) * contentSize.height) : nil)
}

// MARK: Tests

@Suite("Batched quads")
struct BatchingTests {
    @Test("order is preserved: overlapping translucent quads of alternating textures and colours equal the old per-quad path, in far fewer draw calls")
    func orderPreserved() throws {
        let d = try openDevice()
        let a = try d.makeTexture(pixelSize: PixelSize(width: 4, height: 4), pixels: distinctImage(width: 4, height: 4, seed: 1, alpha: 200))
        let b = try d.makeTexture(pixelSize: PixelSize(width: 3, height: 5), pixels: distinctImage(width: 3, height: 5, seed: 2))
        // 60 overlapping quads: runs of three of texture a, then two of b, then a colour,
        // each translucent, each shifted a little: every pixel sees many of them.
        enum Item { case texture(Texture, Double), color(Color) }
        var items: [(Rect, Item)] = []
        for i in 0..<60 {
            let rect = Rect(x: Double(i % 12) * 3.5, y: Double(i / 12) * 5 + Double(i % 3), width: 30, height: 24)
            switch i % 6 {
            case 0, 1, 2: items.append((rect, .texture(a, 0.4 + 0.1 * Double(i % 3))))
            case 3, 4: items.append((rect, .texture(b, 0.5)))
            default: items.append((rect, .color(Color(red: Double(i % 5) / 4, green: 0.3, blue: 1 - Double(i % 4) / 3, alpha: 0.35))))
            }
        }
        let size = PixelSize(width: 72, height: 56)
        let batched = try render(d, size, clear: Color(red: 0.1, green: 0.2, blue: 0.3)) { pass in
            var quads: [Quad] = []
            for (rect, item) in items {
                switch item {
                case let .texture(t, alpha): quads.append(Quad(rect, paint: .texture(t, alpha: alpha)))
                case let .color(c): quads.append(Quad(rect, paint: .solid(c)))
                }
            }
            try pass.draw(quads)
        }
        let reference = try Reference(d)
        let old = try render(d, size, clear: Color(red: 0.1, green: 0.2, blue: 0.3)) { pass in
            for (rect, item) in items {
                switch item {
                case let .texture(t, alpha): reference.draw(pass, t, in: rect, alpha: alpha)
                case let .color(c): reference.fill(pass, rect, c)
                }
            }
        }
        #expect(old.drawCalls == 60)
        #expect(batched.drawCalls == 30, "a run of a, a run of b, a colour: three per six quads")
        let diff = batched.image.difference(from: old.image, tolerance: 1)
        #expect(diff.differing == 0, "max difference \(diff.maxDifference)")

        // Worked by hand: red then blue, both half transparent, over black, one draw call:
        // the overlap is blue over red, (0.25, 0, 0.5) — the other order would give (0.5, 0, 0.25).
        let twoColours = try render(d, PixelSize(width: 6, height: 2)) { pass in
            try pass.fill(Rect(x: 0, y: 0, width: 4, height: 2), color: Color(red: 1, green: 0, blue: 0, alpha: 0.5))
            try pass.fill(Rect(x: 2, y: 0, width: 4, height: 2), color: Color(red: 0, green: 0, blue: 1, alpha: 0.5))
        }
        #expect(twoColours.drawCalls == 1)
        #expect(twoColours.image[0, 0].maxChannelDifference(px(128, 0, 0)) <= 1)
        #expect(twoColours.image[3, 1].maxChannelDifference(px(64, 0, 128)) <= 1)
        #expect(twoColours.image[5, 0].maxChannelDifference(px(0, 0, 128)) <= 1)
    }

    @Test("draw calls: one per run of quads of the same state; opaque quads draw unblended in their own batches")
    func drawCallCounts() throws {
        let d = try openDevice()
        let a = try d.makeTexture(pixelSize: PixelSize(width: 2, height: 2), pixels: RGBAImage(width: 2, height: 2, fill: px(255, 0, 0)))
        let b = try d.makeTexture(pixelSize: PixelSize(width: 2, height: 2), pixels: RGBAImage(width: 2, height: 2, fill: px(0, 0, 255)))
        let size = PixelSize(width: 64, height: 64)
        func grid(_ i: Int) -> Rect { Rect(x: Double(i % 32) * 2, y: Double(i / 32 % 32) * 2, width: 2, height: 2) }

        // 1000 quads of one texture and one state: one draw call.
        let one = try render(d, size) { pass in
            try pass.draw((0..<1000).map { Quad(grid($0), paint: .texture(a, minFilter: .nearest, magFilter: .nearest)) })
        }
        #expect(one.drawCalls == 1)
        #expect(one.image[1, 1] == px(255, 0, 0) && one.image[63, 63] == px(0, 0, 0))

        // Textures alternating in runs of ten: one draw call per run.
        let runs = try render(d, size) { pass in
            for i in 0..<1000 {
                try pass.add(Quad(grid(i), paint: .texture(i / 10 % 2 == 0 ? a : b, minFilter: .nearest, magFilter: .nearest)))
            }
        }
        #expect(runs.drawCalls == 100)
        #expect(runs.image[1, 1] == px(255, 0, 0) && runs.image[21, 1] == px(0, 0, 255))

        // Filters are part of the state; so is blending.
        let filters = try render(d, size) { pass in
            try pass.draw(texture: a, in: grid(0), filter: .nearest)
            try pass.draw(texture: a, in: grid(1), filter: .linear)
            try pass.draw(texture: a, in: grid(2), filter: .linear)
        }
        #expect(filters.drawCalls == 2)

        // Opaque and translucent quads go in separate batches (3 + 3 + 3 quads: 3 draws).
        let green = Color(red: 0, green: 1, blue: 0)
        let split = try render(d, size) { pass in
            for i in 0..<9 {
                try pass.add(Quad(grid(i), paint: .solid(green), isOpaque: (i / 3) % 2 == 0))
            }
        }
        #expect(split.drawCalls == 3)
        #expect(split.image[1, 1] == px(0, 255, 0) && split.image[7, 1] == px(0, 255, 0))

        // An opaque quad really is drawn without blending: a translucent colour marked
        // opaque (breaking the promise) replaces the pixels instead of blending.
        let unblended = try render(d, PixelSize(width: 4, height: 2), clear: .white) { pass in
            try pass.add(Quad(Rect(x: 0, y: 0, width: 2, height: 2), paint: .solid(Color(red: 1, green: 0, blue: 0, alpha: 0.5)), isOpaque: true))
            try pass.add(Quad(Rect(x: 2, y: 0, width: 2, height: 2), paint: .solid(Color(red: 1, green: 0, blue: 0, alpha: 0.5))))
        }
        #expect(unblended.drawCalls == 2)
        #expect(unblended.image[0, 0].maxChannelDifference(px(128, 0, 0, 128)) <= 1)   // replaced
        #expect(unblended.image[3, 0].maxChannelDifference(px(255, 128, 128, 255)) <= 1)   // blended over white

        // Past 16384 quads (16-bit indices) a batch is drawn and the next begins.
        let many = try render(d, size) { pass in
            try pass.draw((0..<20000).map { Quad(grid($0), paint: .solid(green)) })
        }
        #expect(many.drawCalls == 2)
        #expect(many.image[63, 63] == px(0, 255, 0))

        // A clip is part of the stream: background | clip shape | inside | clip shape | after.
        let clipped = try render(d, size) { pass in
            try pass.fill(Rect(x: 0, y: 0, width: 64, height: 64), color: .blue)
            try pass.pushClip(Rect(x: 8, y: 8, width: 16, height: 16))
            try pass.fill(Rect(x: 0, y: 0, width: 64, height: 64), color: .red)
            try pass.popClip(Rect(x: 8, y: 8, width: 16, height: 16))
            try pass.fill(Rect(x: 40, y: 40, width: 8, height: 8), color: .green)
        }
        #expect(clipped.drawCalls == 5)
        #expect(clipped.image[10, 10] == px(255, 0, 0) && clipped.image[30, 10] == px(0, 0, 255) && clipped.image[41, 41] == px(0, 255, 0))
        for t in [a, b] { t.release() }
    }

    @Test("perspective and rotated texture quads equal the old per-quad path")
    func perspective() throws {
        let d = try openDevice()
        let t = try d.makeTexture(pixelSize: PixelSize(width: 8, height: 6), pixels: distinctImage(width: 8, height: 6, seed: 3))
        let reference = try Reference(d)
        let size = PixelSize(width: 96, height: 80)
        let cases: [(Rect, Rect, Transform3D, TextureFilter)] = [
            (Rect(x: 10, y: 10, width: 70, height: 60), unit, perspectiveTilt(0.7, cx: 45, cy: 40), .linear),
            (Rect(x: 10, y: 10, width: 70, height: 60), Rect(x: 0.25, y: 0, width: 0.5, height: 1), perspectiveTilt(-1.0, cx: 45, cy: 40, distance: 150), .nearest),
            (Rect(x: 20, y: 15, width: 50, height: 40), unit, spin(0.4, cx: 45, cy: 35), .linear),
            (Rect(x: 80, y: 70, width: -60, height: -50), unit, .identity, .nearest),   // mirrored
        ]
        for (rect, source, transform, filter) in cases {
            let batched = try render(d, size) { pass in
                try pass.add(Quad(rect, transform: transform, paint: .texture(t, source: source, alpha: 0.8, minFilter: filter, magFilter: filter)))
            }
            let old = try render(d, size) { pass in
                reference.draw(pass, t, in: rect, source: source, alpha: 0.8, minFilter: filter, magFilter: filter, transform: transform)
            }
            let diff = batched.image.difference(from: old.image, tolerance: 1)
            #expect(diff.differing == 0, "\(rect) \(filter): max difference \(diff.maxDifference)")
        }
    }

    @Test("rounded rectangles and borders equal the old per-quad path (scaled, rotated, in perspective)")
    func roundedRects() throws {
        let d = try openDevice()
        let reference = try Reference(d)
        let size = PixelSize(width: 120, height: 90)
        let shapes: [(Rect, Double, Double, Color, Transform3D)] = [
            (Rect(x: 5, y: 5, width: 50, height: 30), 8, 0, Color(red: 1, green: 0.5, blue: 0, alpha: 0.9), .identity),
            (Rect(x: 60, y: 5, width: 50, height: 30), 12, 3, Color(red: 0, green: 0.6, blue: 1, alpha: 1), .identity),
            (Rect(x: 10, y: 45, width: 40, height: 40), 30, 0, Color(red: 0.2, green: 1, blue: 0.2, alpha: 0.6), spin(0.5, cx: 30, cy: 65)),
            (Rect(x: 60, y: 45, width: 50, height: 40), 10, 6, Color(red: 1, green: 0, blue: 1, alpha: 0.7), perspectiveTilt(0.8, cx: 85, cy: 65)),
            (Rect(x: 30, y: 20, width: 60, height: 50), 0, 2.5, Color(red: 1, green: 1, blue: 1, alpha: 0.5),
             Transform3D(scaleX: 0.7, y: 1.3).concatenating(Transform3D(translationX: 10, y: -8))),
        ]
        let batched = try render(d, size) { pass in
            try pass.draw(shapes.map { Quad($0.0, transform: $0.4, paint: .roundedRect(color: $0.3, cornerRadius: $0.1, borderWidth: $0.2)) })
        }
        let old = try render(d, size) { pass in
            for (rect, radius, border, color, transform) in shapes {
                reference.roundedRect(pass, rect, radius: radius, border: border, color: color, transform: transform)
            }
        }
        #expect(batched.drawCalls == 1)
        let diff = batched.image.difference(from: old.image, tolerance: 1)
        #expect(diff.differing == 0, "max difference \(diff.maxDifference)")
    }

    @Test("channel orders read in the shader equal the swizzled textures (rgba, bgra, bgrx), and mixed orders batch together")
    func channelOrders() throws {
        let d = try openDevice()
        // Four pixels in memory order B, G, R, A (premultiplied: colour ≤ alpha).
        let bytes: [UInt8] = [200, 100, 50, 220, 10, 20, 30, 40, 0, 255, 128, 255, 90, 60, 30, 120]
        func texture(_ order: PixelByteOrder) throws -> Texture {
            let t = try d.makeTexture(pixelSize: PixelSize(width: 2, height: 2), byteOrder: order)
            try bytes.withUnsafeBytes { _ = try t.upload($0, bytesPerRow: 8) }
            return t
        }
        let plain = try texture(.rgba), bgra = try texture(.bgra), bgrx = try texture(.bgrx)
        let size = PixelSize(width: 8, height: 8)
        func draw(_ t: Texture, _ channels: PixelByteOrder?) throws -> (image: RGBAImage, drawCalls: Int) {
            try render(d, size, clear: .clear) { pass in
                try pass.add(Quad(Rect(x: 0, y: 0, width: 8, height: 8),
                                  paint: .texture(t, channels: channels, minFilter: .nearest, magFilter: .nearest)))
            }
        }
        // Data of one order in a plain RGBA texture (an atlas page) reads like a texture of that order.
        #expect(try draw(plain, .bgra).image == draw(bgra, nil).image)
        #expect(try draw(plain, .bgrx).image == draw(bgrx, nil).image)
        #expect(try draw(plain, .rgba).image == draw(plain, nil).image)
        // And the other way round: a BGRA texture read as RGBA data, or as BGRX.
        #expect(try draw(bgra, .rgba).image == draw(plain, nil).image)
        #expect(try draw(bgra, .bgrx).image == draw(bgrx, nil).image)
        #expect(try draw(bgra, nil).image[0, 0] == px(50, 100, 200, 220))
        #expect(try draw(bgrx, nil).image[0, 0] == px(50, 100, 200, 255))
        // Quads of one page in three byte orders: one draw call.
        let mixed = try render(d, size) { pass in
            for (i, order) in [PixelByteOrder.rgba, .bgra, .bgrx].enumerated() {
                try pass.add(Quad(Rect(x: Double(i) * 2, y: 0, width: 2, height: 2),
                                  paint: .texture(plain, channels: order, minFilter: .nearest, magFilter: .nearest)))
            }
        }
        #expect(mixed.drawCalls == 1)
        for t in [plain, bgra, bgrx] { t.release() }
    }

    @Test("a clamp rectangle samples like CLAMP_TO_EDGE on the sub-image alone (linear magnification, beyond its edges too)")
    func clampRect() throws {
        let d = try openDevice()
        let sub = distinctImage(width: 4, height: 4, seed: 5)
        // The sub-image at (4, 4) of a 16×16 page full of a loud colour, as an atlas holds it.
        var page = RGBAImage(width: 16, height: 16, fill: px(255, 0, 255))
        for y in 0..<4 { for x in 0..<4 { page[4 + x, 4 + y] = sub[x, y] } }
        let alone = try d.makeTexture(pixelSize: sub.pixelSize, pixels: sub)
        let atlas = try d.makeTexture(pixelSize: page.pixelSize, pixels: page)
        let entry = Rect(x: 4.0 / 16, y: 4.0 / 16, width: 4.0 / 16, height: 4.0 / 16)
        let clamp = Rect(x: 4.5 / 16, y: 4.5 / 16, width: 3.0 / 16, height: 3.0 / 16)   // inset by half a texel
        let size = PixelSize(width: 48, height: 48)
        // The whole sub-image magnified 8×, and a source reaching a texel beyond each edge.
        let sources: [(Rect, Rect)] = [
            (unit, entry),
            (Rect(x: -0.25, y: -0.25, width: 1.5, height: 1.5), Rect(x: 3.0 / 16, y: 3.0 / 16, width: 6.0 / 16, height: 6.0 / 16)),
        ]
        for (aloneSource, atlasSource) in sources {
            let expected = try render(d, size) { pass in
                try pass.add(Quad(Rect(x: 8, y: 8, width: 32, height: 32), paint: .texture(alone, source: aloneSource)))
            }
            let clamped = try render(d, size) { pass in
                try pass.add(Quad(Rect(x: 8, y: 8, width: 32, height: 32), paint: .texture(atlas, source: atlasSource, clamp: clamp)))
            }
            let unclamped = try render(d, size) { pass in
                try pass.add(Quad(Rect(x: 8, y: 8, width: 32, height: 32), paint: .texture(atlas, source: atlasSource)))
            }
            let diff = clamped.image.difference(from: expected.image)
            #expect(diff.differing == 0, "source \(aloneSource): max difference \(diff.maxDifference)")
            // Without the clamp the page's neighbouring texels bleed in at the edges.
            #expect(unclamped.image.difference(from: expected.image, tolerance: 8).differing > 0)
        }
        alone.release(); atlas.release()
    }

    @Test("nine-slice geometry equals the old per-pixel shader at many sizes (shrinking caps, zero-size centre, contentsRect, rotation, both filters, translucent seams)",
          arguments: [(5, 5), (12, 7), (40, 40), (100, 9), (6, 30), (3, 3), (2, 9), (20, 11), (57, 33)])
    func nineSliceMatchesShader(width: Int, height: Int) throws {
        let d = try openDevice()
        let reference = try Reference(d)
        let image = distinctImage(width: 5, height: 5, seed: 7)
        // The 5×5 image inside a 10×8 texture (a contentsRect), surrounded by other colours.
        var big = RGBAImage(width: 10, height: 8, fill: px(255, 0, 0))
        for y in 0..<5 { for x in 0..<5 { big[2 + x, 1 + y] = image[x, y] } }
        let t = try d.makeTexture(pixelSize: big.pixelSize, pixels: big)
        let source = Rect(x: 0.2, y: 0.125, width: 0.5, height: 0.625)
        let centers = [Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2), Rect(x: 0.4, y: 0.4, width: 0, height: 0),
                       Rect(x: 0.2, y: 0.2, width: 0.2, height: 0.6), Rect(x: 0, y: 0.6, width: 1, height: 0)]
        let w = Double(width), h = Double(height)
        let size = PixelSize(width: width + 8, height: height + 8)
        for center in centers {
            for filter in [TextureFilter.nearest, .linear] {
                for (transform, alpha) in [(Transform3D.identity, 1.0), (Transform3D.identity, 0.6), (spin(0.3, cx: w / 2 + 4, cy: h / 2 + 4), 0.8)] {
                    let rect = Rect(x: 4, y: 4, width: w, height: h)
                    let quads = Quad.nineSlice(texture: t, in: rect, source: source, center: center, contentSize: Size(width: 5, height: 5),
                                               alpha: alpha, minFilter: filter, magFilter: filter, transform: transform)
                    #expect(quads.count <= 9)
                    let batched = try render(d, size, clear: Color(red: 0.3, green: 0.3, blue: 0.3)) { pass in try pass.draw(quads) }
                    let old = try render(d, size, clear: Color(red: 0.3, green: 0.3, blue: 0.3)) { pass in
                        reference.nineSlice(pass, t, in: rect, source: source, center: center, contentSize: Size(width: 5, height: 5),
                                            alpha: alpha, minFilter: filter, magFilter: filter, transform: transform)
                    }
                    #expect(batched.drawCalls == 1)
                    let seams = nineSliceJumps(rect: rect, center: center, contentSize: Size(width: 5, height: 5), transform: transform,
                                               nearest: filter == .nearest)
                    let wrong = batched.image.mismatches({ x, y in seams.ambiguous(x, y) ? nil : old.image[x, y] }, tolerance: 1)
                    #expect(wrong.isEmpty, "\(width)×\(height) centre \(center) \(filter) alpha \(alpha) \(transform.isIdentity ? "" : "rotated"): \(wrong)")
                }
            }
        }
        t.release()
    }

    @Test("nine-slice pieces: nine for a centre inside, fewer when caps or the centre are empty; a zero-size centre maps to its texel's middle")
    func nineSlicePieces() throws {
        let d = try openDevice()
        let t = try d.makeTexture(pixelSize: PixelSize(width: 5, height: 5))
        let rect = Rect(x: 0, y: 0, width: 20, height: 10)
        func pieces(_ center: Rect, _ rect: Rect = rect) -> [Quad] {
            Quad.nineSlice(texture: t, in: rect, center: center, contentSize: Size(width: 5, height: 5))
        }
        #expect(pieces(Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2)).count == 9)
        #expect(pieces(unit).count == 1)                                          // no caps: one stretched quad
        #expect(pieces(Rect(x: 0, y: 0.4, width: 1, height: 0.2)).count == 3)    // caps only at top and bottom
        #expect(pieces(Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2), Rect(x: 0, y: 0, width: 3, height: 3)).count == 4)   // caps fill it
        #expect(pieces(Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2), Rect(x: 0, y: 0, width: 0, height: 3)).isEmpty)
        // A zero-size centre at 0.4 of 5 texels: the middle piece shows texel column 2's middle, 0.5.
        let zero = pieces(Rect(x: 0.4, y: 0.4, width: 0, height: 0))
        #expect(zero.count == 9)
        guard case let .texture(_, source, _, _, _, _, _) = zero[4].paint else { Issue.record("not a texture"); return }
        #expect(source == Rect(x: 0.5, y: 0.5, width: 0, height: 0))
        #expect(zero[4].rect == Rect(x: 2, y: 2, width: 15, height: 5))
        // Pieces tile the rectangle: their areas add up, seams shared.
        let area = pieces(Rect(x: 0.2, y: 0.4, width: 0.4, height: 0.2)).reduce(0) { $0 + $1.rect.width * $1.rect.height }
        #expect(abs(area - 200) < 1e-9)
        t.release()
    }

    @Test("quads pending in one pass are drawn before another pass, an upload or a release touches what they use")
    func pendingQuadsKeepCallOrder() throws {
        let d = try openDevice()
        let green = RGBAImage(width: 4, height: 4, fill: px(0, 255, 0))
        let red = RGBAImage(width: 4, height: 4, fill: px(255, 0, 0))
        let screen = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 12, height: 4))

        // Another pass renders into the texture a pending quad samples.
        let t = try d.makeTexture(pixelSize: green.pixelSize, pixels: green)
        let into = try OffscreenTarget(device: d, texture: t)
        let pass = try d.beginRenderPass(on: screen, clear: .black)
        try pass.draw(t, in: Rect(x: 0, y: 0, width: 4, height: 4))
        let other = try d.beginRenderPass(on: into, clear: .red)
        other.submit()
        try pass.draw(t, in: Rect(x: 4, y: 0, width: 4, height: 4))
        pass.submit()
        var image = try screen.readPixels()
        #expect(image[1, 1] == px(0, 255, 0), "drawn before the other pass cleared the texture")
        #expect(image[5, 1] == px(255, 0, 0), "drawn after the other pass")

        // Uploads and releases between quads of one pass.
        let u = try d.makeTexture(pixelSize: green.pixelSize, pixels: green)
        let p2 = try d.beginRenderPass(on: screen, clear: .black)
        try p2.draw(u, in: Rect(x: 0, y: 0, width: 4, height: 4))
        try u.upload(red)
        try p2.draw(u, in: Rect(x: 4, y: 0, width: 4, height: 4))
        let v = try d.makeTexture(pixelSize: green.pixelSize, pixels: green)
        try p2.draw(v, in: Rect(x: 8, y: 0, width: 4, height: 4))
        v.release()
        p2.submit()
        image = try screen.readPixels()
        #expect(image[1, 1] == px(0, 255, 0), "drawn before the upload")
        #expect(image[5, 1] == px(255, 0, 0), "drawn after it")
        #expect(image[9, 1] == px(0, 255, 0), "drawn before the texture was released")
        #expect(p2.drawCalls == 3)
        into.release(); t.release(); u.release(); screen.release()
    }

    @Test("a dropped pass with quads pending draws nothing and leaves the device usable")
    func droppedPass() throws {
        let d = try openDevice()
        let screen = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 4))
        do {
            let pass = try d.beginRenderPass(on: screen, clear: .blue)
            try pass.fill(Rect(x: 0, y: 0, width: 4, height: 4), color: .red)
        }
        #expect(d.quadBatch.quadCount == 0 && d.quadBatch.owner == nil)
        let image = try render(d, PixelSize(width: 4, height: 4)) { try $0.fill(Rect(x: 0, y: 0, width: 2, height: 4), color: .green) }.image
        #expect(image[0, 0] == px(0, 255, 0) && image[3, 0] == px(0, 0, 0))
        #expect(try screen.readPixels()[0, 0] == px(0, 0, 255))
        screen.release()
    }

    @Test("timed passes report their GPU time a frame or more later, from a small ring of counted query objects")
    func gpuTiming() throws {
        let d = try openDevice()
        #expect(d.capabilities.timerQueries, "llvmpipe has GL_EXT_disjoint_timer_query")
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 256, height: 256))
        let quads = (0..<200).map { Quad(Rect(x: Double($0 % 20) * 12, y: Double($0 / 20) * 24, width: 40, height: 40),
                                         paint: .roundedRect(color: Color(red: 1, green: 0, blue: 0, alpha: 0.3), cornerRadius: 8)) }
        #expect(d.latestGPUDuration == nil)
        var frames = 0
        while d.latestGPUDuration == nil && frames < 100 {
            let pass = try d.beginRenderPass(on: t, clear: .black, timed: true)
            #expect(pass.isTimed || frames >= GPUTimer.ringSize)
            try pass.draw(quads)
            pass.submit()
            try d.withContext { glFinish() }
            d.pollGPUTimings()
            frames += 1
        }
        let report = d.pollGPUTimings()
        #expect(report.latestNanoseconds.map { $0 > 0 } == true, "\(report)")
        #expect(report.measured >= 1)
        #expect(d.liveObjectCounts[.query] >= 1 && d.liveObjectCounts[.query] <= GPUTimer.ringSize)
        #expect(d.liveObjectCounts.description.contains("queries: "))

        // A pass opened inside a timed one is part of its time, not timed itself.
        let outer = try d.beginRenderPass(on: t, clear: .black, timed: true)
        let small = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 4))
        let inner = try d.beginRenderPass(on: small, timed: true)
        #expect(outer.isTimed && !inner.isTimed)
        inner.submit(); outer.submit()
        small.release()
        #expect(d.pollGPUTimings().skipped >= 1)

        // Untimed passes begin no query; purging frees the queries.
        let before = d.liveObjectCounts[.query]
        try d.beginRenderPass(on: t, clear: .black).submit()
        #expect(d.liveObjectCounts[.query] == before)
        t.release()
        d.purgeCaches()
        #expect(d.liveObjectCounts.total == 0, "\(d.liveObjectCounts)")
        // Closing frees whatever is left.
        let again = try d.beginRenderPass(on: try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 4)), timed: true)
        again.submit()
        d.close()
        #expect(d.liveObjectCounts.total == 0)
    }

    @Test("a caller's program (draw(with:)) draws after the quads pending before it; its uniforms are resolved at link time")
    func callersProgram() throws {
        let d = try openDevice()
        let solid = try d.program(vertex: "quad.vert", fragment: "solid.frag")
        #expect(solid.quadUniforms.transform >= 0 && solid.quadUniforms.texRect == -1)   // u_texRect unused by solid.frag
        let result = try render(d, PixelSize(width: 4, height: 2)) { pass in
            try pass.fill(Rect(x: 0, y: 0, width: 4, height: 2), color: .red)
            pass.draw(with: solid, in: Rect(x: 2, y: 0, width: 2, height: 2)) { p in
                glUniform4f(p.uniformLocation("u_color"), 0, 0, 1, 1)
            }
        }
        #expect(result.drawCalls == 2)
        #expect(result.image[0, 0] == px(255, 0, 0) && result.image[3, 1] == px(0, 0, 255))
    }
}

extension RenderPass {
    /// One texture quad with both filters the same.
    fileprivate func draw(texture: Texture, in rect: Rect, filter: TextureFilter) throws {
        try add(Quad(rect, paint: .texture(texture, minFilter: filter, magFilter: filter)))
    }
}
