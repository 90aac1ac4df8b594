import LaminaGeometry
import LaminaGPU
import Testing
import LaminaCore

@MainActor
@Suite("README")
struct ReadmeLayerExampleTests {
    @Test("the README's layer example renders a rotated rounded blue card")
    func example() throws {
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 100), scale: 2)
        // -- as in README.md --
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 200, height: 100)
        let card = Layer()
        card.frame = Rect(x: 20, y: 20, width: 60, height: 60)
        card.backgroundColor = .blue
        card.cornerRadius = 12
        card.transform = Transform3D(rotationAngle: .pi / 8, x: 0, y: 0, z: 1)
        root.addSublayer(card)
        let compositor = LayerRenderer(device: device)
        let stats = try compositor.render(root, to: target, background: .white)   // FrameStatistics
        // --
        #expect(stats.quadsDrawn == 1 && stats.drawCalls == 1)
        let image = try target.readPixels()
        #expect(image[100, 100] == RGBAPixel(r: 0, g: 0, b: 255, a: 255))     // the card's centre (50, 50) pt
        #expect(image[42, 42] == RGBAPixel(r: 255, g: 255, b: 255, a: 255))   // its rounded, turned corner is gone
    }
}
