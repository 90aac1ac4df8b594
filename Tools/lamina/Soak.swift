import ArgumentParser
import Foundation
import LaminaCore
import LaminaGeometry
@_spi(Testing) import LaminaGPU
import LaminaScene

/// `lamina soak`: many frames of a changing scene, printing resident memory and live GL
/// objects as it goes, then tearing everything down (docs/reliability.md).
struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run many frames of a changing scene and report memory and live GL objects (leak check).",
        discussion: """
            Each frame moves and fades layers of the scene, redraws one drawn layer, and every \
            100 frames adds and removes a layer with an image of its own; every --loss-every \
            frames the context is lost (simulated) and recovered. Prints, every --report-every \
            frames, the resident set size and the live GL objects, and after teardown the live \
            objects (all zero when nothing leaks).
            """)
    @OptionGroup var device: DeviceOptions
    @Option(help: "The scene file.") var scene = "Examples/showcase.json"
    @Option(help: "Frames to run.") var frames = 100_000
    @Option(name: .customLong("report-every"), help: "Frames between reports.") var reportEvery = 10_000
    @Option(name: .customLong("loss-every"), help: "Frames between simulated context losses (0: none).") var lossEvery = 25_000
    @Option(help: "Target size in points, WIDTHxHEIGHT (default: the scene's).") var size: SizeArgument?

    func run() throws {
        try MainActor.assumeIsolated {
            // The soak sets its layers every frame itself: no implicit animations.
            Transaction.disablesActionsByDefault = true
            let s = try Scene.load(contentsOf: scene)
            let d = try device.open()
            let target = try OffscreenTarget(device: d, size: size?.size ?? s.size, scale: 1)
            let compositor = LayerRenderer(device: d)
            var layers: [Layer] = []
            var stack = [s.root]
            while let l = stack.popLast() { layers.append(l); stack += l.sublayers }
            let drawn = layers.compactMap { $0 as? DrawingLayer }
            let moving = Array(layers.dropFirst().prefix(8))
            let origins = moving.map(\.position)
            for l in drawn { l.setNeedsDisplay() }
            try Transaction.flush()
            func rssKB() -> Int {
                guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
                      let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return -1 }
                return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
            }
            print("soak: \(scene), \(frames) frames on \(d.backend), target \(target.pixelSize)")
            print("frame       RSS kB   live GL objects")
            let start = Date()
            var recoveries: [Double] = []   // ms of each frame that recovered from a lost context
            for f in 1...frames {
                for (i, l) in moving.enumerated() {
                    l.position = Point(x: origins[i].x + Double((f + i * 7) % 9), y: origins[i].y + Double((f + i * 3) % 5))
                    l.opacity = 0.5 + 0.5 * Double((f + i) % 10) / 10
                }
                if !drawn.isEmpty { drawn[f % drawn.count].setNeedsDisplay() }
                if f % 100 == 0 {
                    let extra = Layer()
                    extra.frame = Rect(x: 10, y: 10, width: 40, height: 40)
                    extra.contents = .image(ContentImage(RGBAImage(width: 40 + f % 50, height: 40, fill: RGBAPixel(r: 200, g: 100, b: 0, a: 255))))
                    s.root.addSublayer(extra)
                    try Transaction.flush()
                    _ = try compositor.render(s.root, to: target, background: s.background)
                    extra.removeFromSuperlayer()
                }
                if lossEvery > 0 && f % lossEvery == 0 { d.simulateContextLoss() }
                try Transaction.flush()
                let frameStart = Date()
                let stats = try compositor.render(s.root, to: target, background: s.background)
                if stats.recoveredFromContextLoss {
                    _ = try target.readPixels(PixelRect(x: 0, y: 0, width: 1, height: 1))   // the frame finished
                    recoveries.append(Date().timeIntervalSince(frameStart) * 1000)
                }
                if f % reportEvery == 0 || f == 1 {
                    print(String(format: "%-9d %8d   ", f, rssKB()) + "\(d.liveObjectCounts)")
                }
            }
            let seconds = Date().timeIntervalSince(start)
            compositor.release()
            target.release()
            d.purgeCaches()
            print(String(format: "%d frames in %.1f s (%.3f ms a frame)", frames, seconds, seconds * 1000 / Double(frames)))
            if !recoveries.isEmpty {
                let sorted = recoveries.sorted()
                print(String(format: "%d recoveries from a lost context: the recovering frame took %.1f ms (median; min %.1f, max %.1f), context, shaders, uploads and draw included",
                             sorted.count, sorted[sorted.count / 2], sorted.first!, sorted.last!))
            }
            print("after teardown: \(d.liveObjectCounts)")
            let leaked = d.liveObjectCounts.total
            d.close()
            if leaked != 0 { throw ValidationError("\(leaked) GL objects still live after teardown") }
        }
    }
}
