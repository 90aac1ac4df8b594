import LaminaGeometry
import LaminaValues

// Animations on the render side: the render tree keeps the model state of an animating
// layer apart and, at every frame, works out what its animations present at the frame's
// media time; a layer whose presented values changed is worked out again like a changed
// one (no layout, no draw, no upload).
extension RenderTree {
    /// A layer's model state arrived: it animates (its presented state is worked out at
    /// the next frame) or stops animating (it shows the model again).
    func noteAnimations(of node: RenderNode, model: LayerState) {
        // (Most animations name no contents: then nothing is allocated here.)
        let shown = model.effects.contains { !$0.referencedContents.isEmpty } ? model.effects.flatMap(\.referencedContents) : []
        setAnimationContents(shown, of: node)
        if model.effects.isEmpty {
            if animated.removeValue(forKey: model.id) != nil, let shown = node.lastPresented, shown != model.properties {
                // Back to the model's values: planned again (damage: the presented box and the model's).
                node.changes.formUnion(Self.changes(from: shown, to: model.properties))
                if shown.zPosition != model.properties.zPosition { noteReordered(node) }
                pendingNodes.append(node)
            }
            node.model = nil
            node.lastPresented = nil
        } else {
            node.model = model
            animated[model.id] = node
        }
    }

    /// Works out what every animating layer shows at media time `time` (its animations
    /// applied to its model state, in its local time: the layer timing of its ancestors
    /// and its own). A layer whose presented properties changed is planned again like a
    /// changed one (damage: its old and new boxes). Returns whether any animation will
    /// show something else later (the frame clock must keep running).
    @discardableResult
    public func advanceAnimations(to time: Double) -> Bool {
        var running = false
        for node in animated.values {
            guard let model = node.model else { continue }
            let (t, frozen) = localTime(of: node, at: time)
            var p = presentedProperties(model.properties, effects: model.effects, at: t)
            if model.preservesDepth { p.transition = nil }   // (a transform layer draws nothing of its own to fade)
            if !frozen && !running { running = model.effects.contains { $0.isRunning(at: t) } }
            if p != node.state.properties {
                node.state = model.presenting(p)
            }
            // (No test of equality first: with the binding it needed, it copied the last
            // properties whole, a few hundred bytes, three times a layer a frame.)
            let c: LayerChanges
            switch node.lastPresented {
            case .some(let last): c = Self.changes(from: last, to: p)
            case .none: c = Self.changes(from: model.properties, to: p)
            }
            if !c.isEmpty {
                node.changes.formUnion(c)
                pendingNodes.append(node)
                if c.contains(.zPosition) { noteReordered(node) }
            }
            node.lastPresented = p
        }
        return running
    }

    /// A layer's time at media time `time`, from the root down (only layers with timing of
    /// their own change it: usually none), and whether a layer on the way is paused.
    func localTime(of node: RenderNode, at time: Double) -> (time: Double, frozen: Bool) {
        var timed: [LayerTiming] = []
        var n: RenderNode? = node
        while let c = n {
            let timing = (c.model ?? c.state).properties.timing
            if timing != LayerTiming() { timed.append(timing) }
            n = c.parentNode
        }
        var t = time
        var frozen = false
        for timing in timed.reversed() {
            t = timing.local(t)
            if timing.speed == 0 { frozen = true }
        }
        return (t, frozen)
    }

    /// What differs between two sets of properties, as a renderer sees it.
    static func changes(from a: LayerProperties, to b: LayerProperties) -> LayerChanges {
        var c: LayerChanges = []
        if a.bounds != b.bounds || a.position != b.position || a.anchorPoint != b.anchorPoint || a.anchorPointZ != b.anchorPointZ
            || a.transform != b.transform || a.sublayerTransform != b.sublayerTransform { c.insert(.geometry) }
        if a.zPosition != b.zPosition { c.insert(.zPosition) }
        if a.opacity != b.opacity { c.insert(.opacity) }
        if a.backgroundColor != b.backgroundColor { c.insert(.background) }
        if a.borderColor != b.borderColor || a.borderWidth != b.borderWidth { c.insert(.border) }
        if a.cornerRadius != b.cornerRadius || a.maskedCorners != b.maskedCorners || a.cornerCurve != b.cornerCurve { c.insert(.cornerRadius) }
        if a.contentsRect != b.contentsRect || a.contentsCenter != b.contentsCenter || a.contentsFade != b.contentsFade
            || a.shader != b.shader {
            c.insert(.contents)
        }
        if a.shadowOpacity != b.shadowOpacity || a.shadowRadius != b.shadowRadius || a.shadowOffset != b.shadowOffset
            || a.shadowColor != b.shadowColor { c.insert(.shadow) }
        if a.shaderEffect != b.shaderEffect || a.gradient != b.gradient { c.insert(.effects) }
        if a.transition?.id != b.transition?.id { c.insert(.groupOpacity) }   // it starts or ends: a group, or no longer
        if a.transition != b.transition { c.insert(.transitionProgress) }
        return c
    }
}
