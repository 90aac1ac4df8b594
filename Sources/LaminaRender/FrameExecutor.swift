import LaminaGeometry
import LaminaGPU
import LaminaValues

/// Runs a `Frame` through a pass encoder: the images no longer needed are released, the
/// render tasks run in order (each picture one pass), then the target's pass — one run of
/// draws per damage rectangle, scissored to it. Clips are opened and closed as the draws'
/// clip chains change (O(levels changed)); a backdrop blur ends the pass, blurs, and goes on
/// in a new one. It reads nothing but the frame.
struct FrameExecutor {
    let encoder: any PassEncoder
    /// Stencil levels open, outermost first (indices into the frame's clips).
    private var open: [Int] = []
    /// Quads of the tree drawn (`DrawItem.isLayerQuad`).
    private(set) var quads = 0

    init(encoder: any PassEncoder) { self.encoder = encoder }

    mutating func run(_ frame: Frame, overlays: [DrawItem] = []) throws {
        for key in frame.releasedImages { encoder.release(key) }
        for task in frame.tasks {
            switch task.kind {
            case .picture(let p):
                try encoder.beginPass(.image(task.output, pixels: p.pixels, scale: p.scale), clear: .clear, scissor: nil,
                                      additive: p.additive, prepares: p.prepares)
                try run(p.draws, clips: frame.clips)
                try encoder.endPass()
            case .blur(let b):
                try encoder.blur(b, into: task.output, pixels: frame.pixelSize.asTargetPixels)
            case .gradient(let g):
                try encoder.gradient(g, into: task.output)
            }
        }
        guard frame.isFull || !frame.damage.isEmpty || !overlays.isEmpty else { return }
        let runs = frame.target.runs.isEmpty ? [DrawRun(scissor: nil, draws: [])] : frame.target.runs
        for (i, run) in runs.enumerated() {
            if i == 0 {
                try encoder.beginPass(frame.destination, clear: frame.target.background, scissor: run.scissor, additive: false, prepares: [])
            } else {
                try encoder.setScissor(run.scissor, clear: frame.target.background)
            }
            try self.run(run.draws, clips: frame.clips)
        }
        if !overlays.isEmpty {
            try encoder.setScissor(nil, clear: nil)
            let before = quads
            try run(overlays, clips: frame.clips)
            quads = before
        }
        try encoder.endPass()
    }

    /// Draws in order, each inside its clips; clips are all closed at the end. Draws under
    /// the same clip go to the encoder as one run.
    private mutating func run(_ draws: [DrawItem], clips: [ClipEntry]) throws {
        var i = draws.startIndex
        while i < draws.endIndex {
            // (The case is tested alone: binding its payload here would copy every draw's op.)
            if case .backdrop = draws[i].op, case .backdrop(let b) = draws[i].op {
                // What the pass drew so far is read and blurred between two passes.
                try setClips(nil, clips)
                try encoder.copyBackdrop(b)
                try encoder.endPass()
                try encoder.blurBackdrop(b)
                try encoder.resumePass()
                try setClips(draws[i].clip, clips)
                try encoder.drawBackdrop(b)
                if draws[i].isLayerQuad { quads += 1 }
                i += 1
                continue
            }
            let clip = draws[i].clip
            try setClips(clip, clips)
            var end = i
            while end < draws.endIndex, draws[end].clip == clip {
                if case .backdrop = draws[end].op { break }
                if draws[end].isLayerQuad { quads += 1 }
                end += 1
            }
            try encoder.draw(draws[i..<end])
            i = end
        }
        try setClips(nil, clips)
    }

    /// Sets the stencil to a clip: closes the levels it does not share with what is open
    /// and opens the missing ones.
    private mutating func setClips(_ wanted: Int?, _ clips: [ClipEntry]) throws {
        let depth = wanted.map { clips[$0].depth } ?? 0
        while open.count > depth { try encoder.popClip(clips[open.removeLast()]) }
        var missing: [Int] = []
        var w = wanted
        while let i = w, clips[i].depth > open.count { missing.append(i); w = clips[i].parent }
        while let top = open.last, let i = w, top != i {
            try encoder.popClip(clips[open.removeLast()])
            missing.append(i)
            w = clips[i].parent
        }
        for i in missing.reversed() {
            try encoder.pushClip(clips[i])
            open.append(i)
        }
    }
}

extension PixelSize {
    var asTargetPixels: TargetPixels { TargetPixels(x: 0, y: 0, width: width, height: height) }
}
