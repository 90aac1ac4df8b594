import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics

/// A scene file (JSON, `docs/scene-format.md`): a canvas size, a scale, a background
/// and a layer tree.
@MainActor
public struct Scene {
    public static let currentVersion = 1

    /// The file it was read from (for messages).
    public var file: String
    public var size: Size
    public var scale: Double
    public var background: Color
    public var root: Layer

    /// Reads and builds a scene. Image paths are relative to the scene file's folder.
    public static func load(contentsOf path: String) throws -> Scene {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw SceneError(file: path, path: "$", problem: exists ? "cannot read the file" : "no such file")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(data, file: path, baseDirectory: base)
    }

    public static func parse(_ data: Data, file: String, baseDirectory: String) throws -> Scene {
        let top = try JSONNode.parse(data, file: file)
        let fields = try top.object(allowed: ["version", "size", "scale", "background", "root", "description"])
        guard let versionNode = fields["version"] else { throw top.error("missing 'version' (this reader understands version \(currentVersion))") }
        let version = try versionNode.number()
        guard version == Double(currentVersion) else {
            throw versionNode.error("unsupported scene version \(version); this reader understands version \(currentVersion)")
        }
        guard let sizeNode = fields["size"] else { throw top.error("missing 'size' ([width, height] in points)") }
        let size = try sizeNode.size()
        guard size.width > 0, size.height > 0 else { throw sizeNode.error("the canvas must not be empty") }
        guard let rootNode = fields["root"] else { throw top.error("missing 'root' (the root layer)") }
        _ = try fields["description"]?.string()
        let builder = LayerBuilder(baseDirectory: baseDirectory)
        return Scene(file: file, size: size,
                     scale: try fields["scale"]?.positive() ?? 1,
                     background: try fields["background"]?.color() ?? .clear,
                     root: try builder.layer(rootNode))
    }
}

/// Builds layers from scene JSON.
@MainActor
struct LayerBuilder {
    let baseDirectory: String
    /// Images loaded so far, so that layers sharing a file share one ContentImage.
    private final class Cache { var images: [String: ContentImage] = [:] }
    private let cache = Cache()

    init(baseDirectory: String) { self.baseDirectory = baseDirectory }

    static let layerKeys = [
        "type", "name", "frame", "bounds", "position", "anchorPoint", "anchorPointZ", "zPosition",
        "transform", "sublayerTransform", "doubleSided", "backgroundColor", "opacity", "allowsGroupOpacity",
        "hidden", "borderWidth", "borderColor", "cornerRadius", "masksToBounds", "opaque",
        "contents", "contentsRect", "contentsCenter", "contentsGravity", "contentsScale", "minificationFilter", "magnificationFilter",
        "sublayers", "drawing", "needsDisplayOnBoundsChange", "contentMode", "contentStretch",
    ]

    enum LayerType: String, CaseIterable { case layer, transformLayer }

    func layer(_ node: JSONNode) throws -> Layer {
        let f = try node.object(allowed: LayerBuilder.layerKeys)
        let type = try f["type"]?.oneOf(LayerType.self) ?? .layer
        let l: Layer
        if let d = f["drawing"] {
            guard type == .layer else { throw d.error("a transform layer draws nothing: put 'drawing' on a sublayer") }
            if f["contents"] != nil { throw d.error("'drawing' and 'contents' exclude each other (drawn content replaces contents)") }
            let drawn = DrawingLayer(operations: try drawing(d))
            drawn.followsTargetScale = f["contentsScale"] == nil
            drawn.setNeedsDisplay()
            l = drawn
        } else {
            l = type == .transformLayer ? TransformLayer() : Layer()
        }
        l.name = try f["name"]?.string()

        if let frame = f["frame"] {
            for conflicting in ["bounds", "position"] where f[conflicting] != nil {
                throw frame.error("'frame' cannot be combined with '\(conflicting)': give either frame, or bounds and position")
            }
        }
        if let v = f["bounds"] { l.bounds = try v.rect() }
        if let v = f["anchorPoint"] { l.anchorPoint = try v.point() }
        if let v = f["anchorPointZ"] { l.anchorPointZ = try v.number() }
        if let v = f["position"] { l.position = try v.point() }
        // The frame is the untransformed one, set before the transform (as code does:
        // `layer.frame = …; layer.transform = …`), so the transform turns it about its anchor.
        if let v = f["frame"] { l.frame = try v.rect() }
        if let v = f["zPosition"] { l.zPosition = try v.number() }
        if let v = f["transform"] { l.transform = try transform(v) }
        if let v = f["sublayerTransform"] { l.sublayerTransform = try transform(v) }
        if let v = f["doubleSided"] { l.isDoubleSided = try v.bool() }
        if let v = f["backgroundColor"] { l.backgroundColor = try v.color() }
        if let v = f["opacity"] { l.opacity = try v.number(in: 0...1) }
        if let v = f["allowsGroupOpacity"] { l.allowsGroupOpacity = try v.bool() }
        if let v = f["hidden"] { l.isHidden = try v.bool() }
        if let v = f["borderWidth"] { l.borderWidth = try v.nonNegative() }
        if let v = f["borderColor"] { l.borderColor = try v.color() }
        if let v = f["cornerRadius"] { l.cornerRadius = try v.nonNegative() }
        if let v = f["masksToBounds"] { l.masksToBounds = try v.bool() }
        if let v = f["opaque"] { l.isOpaque = try v.bool() }
        if let v = f["needsDisplayOnBoundsChange"] { l.needsDisplayOnBoundsChange = try v.bool() }
        if let v = f["contents"] { l.contents = try contents(v) }
        if let v = f["contentsRect"] {
            let r = try v.numbers(count: 4...4)
            guard r[2] >= 0, r[3] >= 0 else { throw v.error("negative size \(r[2])×\(r[3]): width and height must not be negative") }
            l.contentsRect = Rect(x: r[0], y: r[1], width: r[2], height: r[3])
        }
        if let v = f["contentsCenter"] {
            let r = try v.numbers(count: 4...4)
            guard r[2] >= 0, r[3] >= 0, r[0] >= 0, r[1] >= 0, r[0] + r[2] <= 1 + 1e-9, r[1] + r[3] <= 1 + 1e-9 else {
                throw v.error("contentsCenter is a unit rectangle [x, y, w, h] inside [0, 0, 1, 1] (got \(r))")
            }
            l.contentsCenter = Rect(x: r[0], y: r[1], width: r[2], height: r[3])
        }
        if let v = f["contentsGravity"] { l.contentsGravity = try v.oneOf(ContentsGravity.self) }
        // The view-level pair (UIView.contentMode/contentStretch), applied as a view applies it.
        if let v = f["contentStretch"], f["contentMode"] == nil {
            throw v.error("'contentStretch' goes with 'contentMode' (it applies to scaling modes only)")
        }
        if let v = f["contentMode"] {
            for key in ["contentsGravity", "contentsCenter", "needsDisplayOnBoundsChange"] where f[key] != nil {
                throw v.error("'contentMode' sets '\(key)' itself: give one or the other")
            }
            var stretch = Rect(x: 0, y: 0, width: 1, height: 1)
            if let sv = f["contentStretch"] {
                let r = try sv.numbers(count: 4...4)
                guard r.allSatisfy({ $0 >= 0 }), r[0] + r[2] <= 1 + 1e-9, r[1] + r[3] <= 1 + 1e-9 else {
                    throw sv.error("contentStretch is a unit rectangle [x, y, w, h] inside [0, 0, 1, 1] (got \(r))")
                }
                stretch = Rect(x: r[0], y: r[1], width: r[2], height: r[3])
            }
            l.apply(contentMode: try v.oneOf(ContentMode.self), contentStretch: stretch)
        }
        if let v = f["contentsScale"] { l.contentsScale = try v.positive() }
        if let v = f["minificationFilter"] { l.minificationFilter = try v.oneOf(TextureFilter.self) }
        if let v = f["magnificationFilter"] { l.magnificationFilter = try v.oneOf(TextureFilter.self) }
        if let v = f["sublayers"] {
            for child in try v.array() { l.addSublayer(try layer(child)) }
        }
        return l
    }

    /// A list of operations applied in order (the first applies first to the layer), or
    /// 16 numbers m11…m44.
    func transform(_ node: JSONNode) throws -> Transform3D {
        let items = try node.array()
        if items.count == 16, items.allSatisfy({ $0.value is NSNumber }) {
            return Transform3D(try items.map { try $0.number() })
        }
        var t = Transform3D.identity
        for item in items {
            let op = try item.object(allowed: ["translate", "scale", "rotate", "rotateX", "rotateY", "axis", "perspective", "matrix"])
            let kinds = op.keys.filter { $0 != "axis" }
            guard kinds.count == 1, let kind = kinds.first, let v = op[kind] else {
                throw item.error("each transform step has exactly one of translate, scale, rotate, rotateX, rotateY, perspective, matrix")
            }
            if op["axis"] != nil && kind != "rotate" { throw op["axis"]!.error("'axis' goes with 'rotate' only") }
            let step: Transform3D
            switch kind {
            case "translate":
                let n = try v.numbers(count: 2...3)
                step = Transform3D(translationX: n[0], y: n[1], z: n.count == 3 ? n[2] : 0)
            case "scale":
                if v.value is [Any] {
                    let n = try v.numbers(count: 2...3)
                    step = Transform3D(scaleX: n[0], y: n[1], z: n.count == 3 ? n[2] : 1)
                } else {
                    let s = try v.number()
                    step = Transform3D(scaleX: s, y: s)
                }
            case "rotate":
                let axis = try op["axis"]?.numbers(count: 3...3) ?? [0, 0, 1]
                step = Transform3D(rotationAngle: try v.number() * .pi / 180, x: axis[0], y: axis[1], z: axis[2])
            case "rotateX":
                step = Transform3D(rotationAngle: try v.number() * .pi / 180, x: 1, y: 0, z: 0)
            case "rotateY":
                step = Transform3D(rotationAngle: try v.number() * .pi / 180, x: 0, y: 1, z: 0)
            case "perspective":
                var p = Transform3D.identity
                p.m34 = -1 / (try v.positive())
                step = p
            default: // matrix
                step = Transform3D(try v.numbers(count: 16...16))
            }
            t = t.concatenating(step)
        }
        return t
    }

    /// "file.png", {"image": "file.png"}, or {"pixels": [["#rrggbb", …], …]} (rows top-first).
    func contents(_ node: JSONNode) throws -> LayerContents {
        if let path = node.value as? String { return .image(try image(path, node: node)) }
        let f = try node.object(allowed: ["image", "pixels"])
        guard f.count == 1 else { throw node.error("contents take exactly one of 'image' or 'pixels'") }
        if let v = f["image"] { return .image(try image(try v.string(), node: v)) }
        let rows = try f["pixels"]!.array()
        guard let first = rows.first else { throw f["pixels"]!.error("an image needs at least one row") }
        let width = try first.array().count
        guard width > 0 else { throw first.error("an image needs at least one pixel a row") }
        var image = RGBAImage(width: width, height: rows.count)
        for (y, row) in rows.enumerated() {
            let cells = try row.array()
            guard cells.count == width else { throw row.error("row has \(cells.count) pixels; the first row has \(width)") }
            for (x, cell) in cells.enumerated() { image[x, y] = try cell.color().premultipliedPixel }
        }
        return .image(ContentImage(image))
    }

    func imageFile(_ path: String, node: JSONNode) throws -> ContentImage { try image(path, node: node) }

    private func image(_ path: String, node: JSONNode) throws -> ContentImage {
        let full = path.hasPrefix("/") ? path : URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).path
        if let cached = cache.images[full] { return cached }
        do {
            let image = try ContentImage(contentsOfPNG: full)
            cache.images[full] = image
            return image
        } catch GraphicsError.imageNotFound {
            throw node.error("missing image '\(path)' (looked for \(full))")
        } catch {
            throw node.error("cannot use image '\(path)': \(error)")
        }
    }
}

extension Scene {
    /// Renders the scene offscreen: `size`/`scale` override the file's. One commit runs:
    /// layout, display (drawn layers draw at the target's scale), composite. Returns the pixels.
    public func render(device: GPUDevice, size: Size? = nil, scale: Double? = nil) throws -> (image: RGBAImage, stats: FrameStatistics) {
        let scale = scale ?? self.scale
        let target = try OffscreenTarget(device: device, size: size ?? self.size, scale: scale)
        defer { target.release() }
        setContentsScale(scale, of: root)
        let host = LayerTreeHost(rootLayer: root, target: target, background: background)
        defer { host.detach() }
        try Transaction.flush()
        return (try target.readPixels(), host.lastFrame)
    }

    /// Drawn layers draw at the target's scale (as UIKit gives views the screen's scale).
    private func setContentsScale(_ scale: Double, of layer: Layer) {
        if let d = layer as? DrawingLayer, d.followsTargetScale, d.contentsScale != scale {
            layer.contentsScale = scale
            layer.setNeedsDisplay()
        }
        for s in layer.sublayers { setContentsScale(scale, of: s) }
    }
}
