import LaminaGeometry
import LaminaGPU

/// One step of a render list: what to draw, fully resolved (world transform, opacity,
/// clip, texture), in draw order. The render list is the renderer's only input; building
/// it touches no GL, so it can be tested without a GPU.
public enum RenderCommand {
    /// A solid rectangle, optionally rounded or as a border ring (`borderWidth` > 0).
    case fill(rect: Rect, color: Color, cornerRadius: Double, borderWidth: Double, transform: Transform3D, layer: ObjectIdentifier)
    /// Contents: `sourceRect` (unit) of the image or texture into `rect`; with a `center`
    /// other than the unit rectangle, nine-slice stretched (`contentSize` in points).
    case contents(LayerContents, rect: Rect, sourceRect: Rect, center: Rect, contentSize: Size, alpha: Double,
                  minFilter: TextureFilter, magFilter: TextureFilter, transform: Transform3D, layer: ObjectIdentifier)
    /// Restrict what follows to a (rounded) rectangle, until the matching `popClip`.
    case pushClip(rect: Rect, cornerRadius: Double, transform: Transform3D)
    case popClip(rect: Rect, cornerRadius: Double, transform: Transform3D)
    /// What follows, until `endGroup`, is drawn offscreen and composited as one image at `opacity`.
    case beginGroup
    case endGroup(opacity: Double)

    /// Whether the command draws a quad of the layer tree (not a clip or a group boundary).
    public var isQuad: Bool {
        switch self {
        case .fill, .contents: return true
        default: return false
        }
    }
}

/// Turns a layer tree into a render list (`RenderList.build(root)`).
@MainActor
public struct RenderList {
    public private(set) var commands: [RenderCommand] = []
    /// Layers looked at while building (hidden or culled ones included).
    public private(set) var layersVisited = 0
    /// Images shown by layers of the tree, drawn or not (hidden, transparent or culled
    /// layers still hold theirs): the compositor keeps their textures.
    public private(set) var referencedImages = Set<ObjectIdentifier>()

    /// The render list of `root` and its subtree. `placement` maps the root's
    /// superlayer space to target points (identity: the root is placed in target points).
    public static func build(_ root: Layer, placement: Transform3D = .identity) -> RenderList {
        var list = RenderList()
        list.emit(root, world: root.transformToSuperlayer.concatenating(.flatten).concatenating(placement), alpha: 1)
        return list
    }

    private mutating func emit(_ layer: Layer, world: Transform3D, alpha: Double) {
        layersVisited += 1
        guard !layer.isHidden, layer.opacity > 0, alpha > 0,
              layer.isDoubleSided || !RenderList.facesAway(layer.bounds, world) else {
            noteImages(in: layer)
            return
        }
        if case .image(let image)? = layer.contents { referencedImages.insert(ObjectIdentifier(image)) }

        if layer.preservesDepth {
            // A transform layer draws nothing itself; its 3D context is sorted back to front.
            var planes: [(layer: Layer, world: Transform3D, alpha: Double, depth: Double)] = []
            // Depth is measured in the 3D space the context is flattened from: the transform
            // layer's own transform and its superlayer's sublayerTransform included.
            var context = layer.transformToSuperlayer
            if let parent = layer.superlayer { context = context.concatenating(parent.sublayerTransformAboutAnchor) }
            collectPlanes(of: layer, world: world, context: context, alpha: alpha * layer.opacity, into: &planes)
            let sorted = planes.enumerated().sorted { a, b in
                a.element.depth != b.element.depth ? a.element.depth < b.element.depth : a.offset < b.offset
            }
            for (_, plane) in sorted { emit(plane.layer, world: plane.world, alpha: plane.alpha) }
            return
        }

        let id = ObjectIdentifier(layer)
        // Group opacity: fade the layer as one image when more than one thing is drawn in
        // its subtree (they could overlap).
        let group = layer.opacity < 1 && layer.allowsGroupOpacity && RenderList.drawsMoreThanOneItem(layer)
        let a = group ? 1 : alpha * layer.opacity
        if group { commands.append(.beginGroup) }

        let bounds = layer.bounds
        if let color = layer.backgroundColor, color.alpha > 0 {
            commands.append(.fill(rect: bounds, color: color.withAlpha(color.alpha * a), cornerRadius: layer.cornerRadius,
                                  borderWidth: 0, transform: world, layer: id))
        }
        if layer.masksToBounds {
            commands.append(.pushClip(rect: bounds, cornerRadius: layer.cornerRadius, transform: world))
        }
        if let contents = layer.contents, let frame = layer.contentsFrame, !frame.isEmpty, let size = layer.contentsSize {
            commands.append(.contents(contents, rect: frame, sourceRect: layer.contentsRect, center: layer.contentsCenter,
                                      contentSize: size, alpha: a,
                                      minFilter: layer.minificationFilter, magFilter: layer.magnificationFilter,
                                      transform: world, layer: id))
        }
        if !layer.sublayers.isEmpty {
            let toSublayers = layer.transformForSublayers.concatenating(world)
            // Siblings in increasing zPosition; equal values keep their order.
            let ordered = layer.sublayers.enumerated().sorted { x, y in
                x.element.zPosition != y.element.zPosition ? x.element.zPosition < y.element.zPosition : x.offset < y.offset
            }
            for (_, sub) in ordered {
                emit(sub, world: sub.transformToSuperlayer.concatenating(toSublayers), alpha: a)
            }
        }
        if layer.masksToBounds {
            commands.append(.popClip(rect: bounds, cornerRadius: layer.cornerRadius, transform: world))
        }
        if layer.borderWidth > 0, layer.borderColor.alpha > 0 {
            commands.append(.fill(rect: bounds, color: layer.borderColor.withAlpha(layer.borderColor.alpha * a),
                                  cornerRadius: layer.cornerRadius, borderWidth: layer.borderWidth, transform: world, layer: id))
        }
        if group { commands.append(.endGroup(opacity: alpha * layer.opacity)) }
    }

    /// Adds a translucent rectangle over everything (debug overlays: redrawn regions).
    public mutating func appendOverlay(rect: Rect, color: Color, transform: Transform3D) {
        commands.append(.fill(rect: rect, color: color, cornerRadius: 0, borderWidth: 0,
                              transform: transform.concatenating(.flatten), layer: ObjectIdentifier(Layer.self)))
    }

    /// Records the images of a subtree that is not drawn.
    private mutating func noteImages(in layer: Layer) {
        if case .image(let image)? = layer.contents { referencedImages.insert(ObjectIdentifier(image)) }
        for s in layer.sublayers { noteImages(in: s) }
    }

    /// The sublayers of a transform layer, through nested transform layers, each with its
    /// world transform and its depth in the shared 3D space (z of its centre).
    private mutating func collectPlanes(of layer: Layer, world: Transform3D, context: Transform3D, alpha: Double,
                                        into planes: inout [(layer: Layer, world: Transform3D, alpha: Double, depth: Double)]) {
        let toSublayers = layer.transformForSublayers
        for sub in layer.sublayers {
            let local = sub.transformToSuperlayer.concatenating(toSublayers)
            let subWorld = local.concatenating(world)
            let subContext = local.concatenating(context)
            if sub.preservesDepth {
                layersVisited += 1
                guard !sub.isHidden, sub.opacity > 0 else { noteImages(in: sub); continue }
                collectPlanes(of: sub, world: subWorld, context: subContext, alpha: alpha * sub.opacity, into: &planes)
            } else {
                let c = Point(x: sub.bounds.midX, y: sub.bounds.midY)
                let t = subContext
                let z = c.x * t.m13 + c.y * t.m23 + t.m43
                let w = c.x * t.m14 + c.y * t.m24 + t.m44
                planes.append((sub, subWorld, alpha, abs(w) > 1e-12 ? z / w : z))
            }
        }
    }

    /// Whether the layer's subtree draws at least two items (stops counting at two).
    static func drawsMoreThanOneItem(_ layer: Layer) -> Bool {
        var count = 0
        func visit(_ l: Layer) -> Bool {
            if !l.preservesDepth {
                if l.backgroundColor != nil { count += 1 }
                if l.contents != nil { count += 1 }
                if l.borderWidth > 0 { count += 1 }
            }
            if count > 1 { return true }
            for s in l.sublayers where !s.isHidden && s.opacity > 0 {
                if visit(s) { return true }
            }
            return false
        }
        return visit(layer)
    }

    /// True when the layer's front faces away from the viewer under `world` (its
    /// projected corners wind the other way).
    static func facesAway(_ bounds: Rect, _ world: Transform3D) -> Bool {
        let h = world.planeHomography
        guard let p0 = h.apply(Point(x: bounds.minX, y: bounds.minY)),
              let p1 = h.apply(Point(x: bounds.maxX, y: bounds.minY)),
              let p2 = h.apply(Point(x: bounds.minX, y: bounds.maxY)) else { return true }
        let cross = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x)
        return cross < 0
    }
}
