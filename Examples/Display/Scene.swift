import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaUI

// MARK: The scene

/// A software video producer: a pool of NV12 frames; a frame handed to Lamina is written
/// again only after Lamina released it.
final class VideoProducer: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [Int] = []
    private(set) var pool: [(carrier: GBMBuffer, frame: ExternalBuffer)] = []
    let size: PixelSize

    init(device: GPUDevice, size: PixelSize, count: Int) throws {
        self.size = size
        for i in 0..<count {
            let made = try device.makeYUVFrame(pixelSize: size, format: .nv12, colorSpace: .bt709, range: .limited,
                                               releaseHandler: { [weak self] b in self?.released(b) }) { _, _ in (0, 0, 0) }
            pool.append((made.buffer, made.frame))
            free.append(i)
        }
    }

    private func released(_ buffer: ExternalBuffer) {
        lock.lock(); defer { lock.unlock() }
        if let i = pool.firstIndex(where: { $0.frame === buffer }) { free.append(i) }
    }

    /// The next frame: colour bars that scroll with `n`, written into a free buffer.
    func produce(_ n: Int) throws -> ExternalBuffer? {
        lock.lock()
        guard !free.isEmpty else { lock.unlock(); return nil }
        let i = free.removeFirst()
        lock.unlock()
        let (w, h) = (size.width, size.height)
        let bars: [(Double, Double, Double)] = [(0.75, 0.75, 0.75), (0.75, 0.75, 0), (0, 0.75, 0.75), (0, 0.75, 0), (0.75, 0, 0.75), (0.75, 0, 0), (0, 0, 0.75)]
        try pool[i].carrier.withMappedBytes(write: true) { base, rowBytes in
            let p = base.assumingMemoryBound(to: UInt8.self)
            for y in stride(from: 0, to: h, by: 2) {
                for x in stride(from: 0, to: w, by: 2) {
                    let c = bars[((x + n * 4) * bars.count / w) % bars.count]
                    let e = YUVColorSpace.bt709.encode(red: c.0, green: c.1, blue: c.2, range: .limited)
                    p[y * rowBytes + x] = e.y; p[y * rowBytes + x + 1] = e.y
                    p[(y + 1) * rowBytes + x] = e.y; p[(y + 1) * rowBytes + x + 1] = e.y
                    p[(h + y / 2) * rowBytes + x] = e.u; p[(h + y / 2) * rowBytes + x + 1] = e.v
                }
            }
        }
        return pool[i].frame
    }
}


/// The demo window's contents: a backdrop, the video layer, a card moving across, a
/// spinning square and a progress bar. `update(n)` sets frame `n`.
@MainActor
final class DemoScene {
    static let backdrop = Color(red: 0.12, green: 0.14, blue: 0.2)
    let window: Window
    let video = Layer(), card = Layer(), spinner = Layer(), progress = Layer()
    let producer: VideoProducer
    let frames: Int
    private let size: Size

    init(target: RenderTarget, frames: Int) throws {
        self.frames = frames
        window = Window(target: target, background: DemoScene.backdrop)
        size = target.size
        let (W, H) = (size.width, size.height)
        video.frame = Rect(x: W * 0.1, y: H * 0.12, width: W * 0.4, height: W * 0.4 * 9 / 16)
        video.contentsGravity = .resize
        card.frame = Rect(x: 0, y: H * 0.72, width: W * 0.12, height: H * 0.12)
        card.backgroundColor = Color(red: 1, green: 0.55, blue: 0.1)
        card.cornerRadius = 12
        spinner.bounds = Rect(x: 0, y: 0, width: H * 0.2, height: H * 0.2)
        spinner.position = Point(x: W * 0.75, y: H * 0.35)
        spinner.backgroundColor = Color(red: 0.3, green: 0.8, blue: 0.5)
        progress.frame = Rect(x: 0, y: H - 12, width: 0, height: 12)
        progress.backgroundColor = .white
        for l in [video, card, spinner, progress] { window.layer.addSublayer(l) }
        producer = try VideoProducer(device: target.device, size: PixelSize(width: 320, height: 180), count: 3)
    }

    /// Sets frame `n` and composites it (into the target's next buffer).
    func render(_ n: Int) throws {
        let (W, H) = (size.width, size.height)
        Transaction.withoutActions {
            card.position = Point(x: W * 0.06 + (W * 0.88) * Double(n % 120) / 119, y: H * 0.78)
            spinner.transform = Transform3D(rotationAngle: Double(n) * .pi / 30, x: 0, y: 0, z: 1)
            progress.frame = Rect(x: 0, y: H - 12, width: W * Double(n + 1) / Double(frames), height: 12)
        }
        if let frame = try producer.produce(n) { Transaction.withoutActions { video.contents = .external(frame) } }
        try window.compositeNow()
    }

    /// What must be where, worked out from the scene alone: (name, point, colour).
    var landmarks: [(String, Point, Color)] {
        [("backdrop", Point(x: 4, y: 4), DemoScene.backdrop),
         ("card", card.position, card.backgroundColor ?? .clear),
         ("spinner", spinner.position, spinner.backgroundColor ?? .clear),
         ("progress", Point(x: 2, y: size.height - 6), .white)]
    }
}
