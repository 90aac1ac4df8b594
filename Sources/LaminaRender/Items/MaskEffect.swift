import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A mask (`Layer.mask`): the mask layer's subtree is rendered into an image of its own, and
/// the group's image (with its shadow) is multiplied by that image's alpha — one more image,
/// made again only when either changes.
enum MaskEffect: CompositeEffect {
    static let name = "mask"

    static func makesGroup(_ node: RenderNode) -> Bool { node.state.mask != nil }

    static func apply(_ composite: inout Composite, of node: RenderNode, into builder: inout DrawBuilder) {
        guard node.state.mask != nil else { return }
        guard let (image, rect) = composite.image, let (mask, maskRect) = builder.surfaceImage(.mask(of: node.id)) else {
            composite.image = nil   // (nothing of the layer shows without its mask's image)
            composite.shadow = nil
            return
        }
        var box = TargetBox(targetRect: rect)
        if let s = composite.shadow { box = box.union(TargetBox(targetRect: s.rect)) }
        box = box.intersection(TargetBox(targetRect: maskRect))
        let limit = PixelSize(width: builder.maximumImageSide, height: builder.maximumImageSide)
        guard !box.isEmpty, let pixels = TargetBox(minX: max(0, box.minX), minY: max(0, box.minY), maxX: box.maxX, maxY: box.maxY)
                .pixelsCovering(scale: builder.scale, limit: limit) else {
            composite.image = nil
            composite.shadow = nil
            return
        }
        let out = pixels.targetBox(scale: builder.scale).targetRect
        let key = ImageKey.masked(node.id)
        var stamp = [Double(composite.version), Double(builder.version(of: mask)), rect.minX, rect.minY, rect.width, rect.height,
                     maskRect.minX, maskRect.minY, maskRect.width, maskRect.height]
        if let s = composite.shadow { stamp += [Double(builder.version(of: s.key)), s.rect.minX, s.rect.minY, s.rect.width, s.rect.height] }
        if builder.needsImage(key, pixels: pixels, stamp: stamp) {
            var draws: [DrawItem] = []
            if let (k, r) = composite.shadow {
                draws.append(DrawItem(clip: nil, cuts: [], op: .image(ImageDraw(image: k, rect: r, alpha: 1, filter: .linear))))
            }
            draws.append(DrawItem(clip: nil, cuts: [], op: .image(ImageDraw(image: image, rect: rect, alpha: 1, filter: .nearest))))
            // The mask over the whole image: texture coordinates of the mask at its corners.
            let source = Rect(x: (out.minX - maskRect.minX) / maskRect.width, y: (out.minY - maskRect.minY) / maskRect.height,
                              width: out.width / maskRect.width, height: out.height / maskRect.height)
            draws.append(DrawItem(clip: nil, cuts: [], op: .multiplyByMask(image: mask, rect: out, maskSource: source)))
            builder.addTask(key, .picture(PictureTask(pixels: pixels, scale: builder.scale, additive: false, draws: draws)))
        }
        composite.image = (key, out)
        composite.shadow = nil
        composite.version = builder.version(of: key)
    }
}
