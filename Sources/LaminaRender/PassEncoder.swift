import LaminaGeometry
import LaminaGPU
import LaminaValues

/// Where a pass draws: the render target, or a kept image made by a task.
public enum PassDestination: Equatable, CustomStringConvertible {
    case target
    /// An image of `pixels` (its place on the target's pixel grid) at `scale`.
    case image(ImageKey, pixels: TargetPixels, scale: Double)

    public var description: String {
        switch self {
        case .target: return "target"
        case let .image(key, pixels, _): return "\(key) \(pixels.width)×\(pixels.height)"
        }
    }
}

/// The narrow render-pass interface the executor drives (wlroots' `wlr_render_pass`): a
/// pass on a destination, draws and clips added in order, the work between passes (blurs,
/// gradients) — nothing else. `GLPassEncoder` issues GL; `RecordingPassEncoder` records the
/// calls, so that a frame's execution is tested without EGL. One pass is open at a time.
public protocol PassEncoder: AnyObject {
    /// Opens a pass, cleared to `clear` (nil: what it holds is kept), limited to `scissor`
    /// (target pixels; nil: all of it); `additive`: draws add to what is there (cross-fades).
    /// `prepares`: contents to have on the GPU first (drawn later in the fade).
    func beginPass(_ destination: PassDestination, clear: Color?, scissor: TargetPixels?, additive: Bool, prepares: [ContentRef]) throws
    /// Limits the pass's later clears and draws to `scissor`, cleared to `clear` first (the
    /// next damage rectangle). No clip is open.
    func setScissor(_ scissor: TargetPixels?, clear: Color?) throws
    func pushClip(_ clip: ClipEntry) throws
    func popClip(_ clip: ClipEntry) throws
    /// Adds draws, in order, inside the clip that is open (none of them a backdrop: the
    /// executor draws those by the calls below). A run, not one draw a call: a draw is a
    /// few hundred bytes, and handing one over by value copies it.
    func draw(_ draws: ArraySlice<DrawItem>) throws
    /// Copies what the pass holds under a backdrop (and the blur's reach around it) for
    /// `blurBackdrop`; then the pass ends.
    func copyBackdrop(_ backdrop: BackdropDraw) throws
    /// Ends the open pass.
    func endPass() throws
    /// Blurs the backdrop copied last (between passes).
    func blurBackdrop(_ backdrop: BackdropDraw) throws
    /// Opens again the pass that `copyBackdrop` ended (same destination and scissor, nothing cleared).
    func resumePass() throws
    /// Draws the blurred backdrop inside the layer's shape.
    func drawBackdrop(_ backdrop: BackdropDraw) throws
    /// Runs a blur or gradient task into `output`.
    func blur(_ task: BlurTask, into output: ImageKey, pixels: TargetPixels) throws
    func gradient(_ task: GradientTask, into output: ImageKey) throws
    /// Frees a kept image no frame needs any more.
    func release(_ image: ImageKey)
}

/// A pass encoder that records each call as a line of text (and counts draws): frames
/// are executed and compared in tests without a GPU (Flutter's `flow/testing`).
public final class RecordingPassEncoder: PassEncoder {
    /// The calls, in order, as text (`"begin target clear scissor (0, 0, 10×10 px)"`, `"draw solid …"`).
    public private(set) var calls: [String] = []
    /// Draws recorded, per kind of draw.
    public private(set) var draws: [String: Int] = [:]
    /// The number of draws in each run handed over by `draw(_:)`, in order.
    public private(set) var runs: [Int] = []
    /// Whether a pass is open (a second `beginPass` meanwhile is an error).
    public private(set) var passIsOpen = false
    private var lastPass: (PassDestination, TargetPixels?)?

    public init() {}

    public struct PassesOverlap: Error, CustomStringConvertible {
        public let call: String
        public var description: String { "\(call) while a pass is open: passes must not nest" }
    }

    public func beginPass(_ destination: PassDestination, clear: Color?, scissor: TargetPixels?, additive: Bool, prepares: [ContentRef]) throws {
        guard !passIsOpen else { throw PassesOverlap(call: "beginPass(\(destination))") }
        passIsOpen = true
        lastPass = (destination, scissor)
        calls.append("begin \(destination)" + (clear != nil ? " clear" : "") + (scissor.map { " scissor \($0)" } ?? "")
                     + (additive ? " additive" : ""))
    }
    public func setScissor(_ scissor: TargetPixels?, clear: Color?) throws {
        calls.append("scissor " + (scissor.map { "\($0)" } ?? "none") + (clear != nil ? " clear" : ""))
        lastPass?.1 = scissor
    }
    public func pushClip(_ clip: ClipEntry) throws { calls.append("push clip \(Self.describe(clip))") }
    public func popClip(_ clip: ClipEntry) throws { calls.append("pop clip \(Self.describe(clip))") }
    public func draw(_ draws: ArraySlice<DrawItem>) throws {
        runs.append(draws.count)
        for d in draws {
            let name = Self.name(of: d.op)
            self.draws[name, default: 0] += 1
            calls.append("draw \(name)" + (d.cuts.isEmpty ? "" : " cut"))
        }
    }
    public func copyBackdrop(_ backdrop: BackdropDraw) throws { calls.append("copy backdrop") }
    public func endPass() throws {
        passIsOpen = false
        calls.append("end")
    }
    public func blurBackdrop(_ backdrop: BackdropDraw) throws {
        guard !passIsOpen else { throw PassesOverlap(call: "blurBackdrop") }
        calls.append("blur backdrop")
    }
    public func resumePass() throws {
        guard !passIsOpen, let (d, s) = lastPass else { throw PassesOverlap(call: "resumePass") }
        passIsOpen = true
        calls.append("resume \(d)" + (s.map { " scissor \($0)" } ?? ""))
    }
    public func drawBackdrop(_ backdrop: BackdropDraw) throws {
        draws["backdrop", default: 0] += 1
        calls.append("draw backdrop")
    }
    public func blur(_ task: BlurTask, into output: ImageKey, pixels: TargetPixels) throws {
        guard !passIsOpen else { throw PassesOverlap(call: "blur") }
        calls.append("blur into \(output)")
    }
    public func gradient(_ task: GradientTask, into output: ImageKey) throws {
        guard !passIsOpen else { throw PassesOverlap(call: "gradient") }
        calls.append("gradient into \(output)")
    }
    public func release(_ image: ImageKey) { calls.append("release \(image)") }

    /// A draw's kind, as recorded.
    static func name(of op: DrawOp) -> String {
        switch op {
        case .solid: return "solid"
        case .roundedRect(_, _, _, _, let border): return border > 0 ? "border" : "rounded rect"
        case .shadow: return "shadow"
        case .contents: return "contents"
        case .image(let i): return "image \(i.image)"
        case .blended(let i, let mode): return "blended \(mode) \(i.image)"
        case .backdrop: return "backdrop"
        case .multiplyByMask(let k, _, _): return "mask \(k)"
        case .shader: return "shader"
        case .effect(let e): return "effect \(e.image.image)"
        }
    }

    static func describe(_ clip: ClipEntry) -> String {
        clip.isTargetRect ? "rect \(clip.rect)" : "shape \(clip.rect)" + (clip.corners.isRounded ? " \(clip.corners)" : "")
    }
}
