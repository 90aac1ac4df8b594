// swift-tools-version: 6.2
import PackageDescription

// A real SDL2 program embedding Lamina as a HUD over its own OpenGL ES scene (docs/embedding.md).
// It depends on Lamina by relative path; build it with `swift build --package-path Examples/SDLHost`.
let package = Package(
    name: "SDLHost",
    dependencies: [
        .package(name: "Lamina", path: "../.."),
    ],
    targets: [
        // No pkg-config: its -D_REENTRANT is a flag SwiftPM rejects; the header is found as <SDL2/SDL.h>.
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        .executableTarget(
            name: "sdl-host",
            dependencies: [
                "CSDL2",
                .product(name: "LaminaUI", package: "Lamina"),
                .product(name: "LaminaCore", package: "Lamina"),
                .product(name: "LaminaGPU", package: "Lamina"),
                .product(name: "LaminaGraphics", package: "Lamina"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
