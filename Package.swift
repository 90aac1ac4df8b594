// swift-tools-version: 6.2
import PackageDescription

/// Lamina's own targets build without warnings: any warning is an error.
/// (Warning settings apply to this package only, never to dependencies.)
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "Lamina",
    products: [
        // Everything at once: `import Lamina` re-exports the modules below.
        .library(name: "Lamina", targets: ["Lamina"]),
        .library(name: "LaminaGeometry", targets: ["LaminaGeometry"]),
        .library(name: "LaminaValues", targets: ["LaminaValues"]),
        .library(name: "LaminaGPU", targets: ["LaminaGPU"]),
        .library(name: "LaminaGraphics", targets: ["LaminaGraphics"]),
        .library(name: "LaminaModel", targets: ["LaminaModel"]),
        .library(name: "LaminaRender", targets: ["LaminaRender"]),
        .library(name: "LaminaCore", targets: ["LaminaCore"]),
        .library(name: "LaminaScene", targets: ["LaminaScene"]),
        .library(name: "LaminaUI", targets: ["LaminaUI"]),
        // Snapshot tests of layers, views, scenes and targets for users' test suites.
        .library(name: "LaminaTesting", targets: ["LaminaTesting"]),
        // The raw GLES 3 and EGL C APIs, for a dependent package's own GL code (GLLayer,
        // ShaderProgram users): `.product(name: "CGLES", package: "Lamina")`.
        .library(name: "CGLES", targets: ["CGLES"]),
        .library(name: "CEGL", targets: ["CEGL"]),
        .executable(name: "lamina", targets: ["lamina"]),
        // The C API (Sources/CLamina/include/lamina.h) as a shared library: liblamina.so
        // once installed (Tools/install.sh; SwiftPM names it libLaminaC.so).
        .library(name: "LaminaC", type: .dynamic, targets: ["LaminaCAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // `swift package generate-documentation` (Tools/docs.sh): the DocC catalogs of Sources/*/*.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // One system-library target per C library, found through pkg-config.
        .systemLibrary(name: "CEGL", pkgConfig: "egl", providers: [.apt(["libegl-dev", "libegl-mesa0"])]),
        .systemLibrary(name: "CGLES", pkgConfig: "glesv2", providers: [.apt(["libgles-dev"])]),
        .systemLibrary(name: "CGBM", pkgConfig: "gbm", providers: [.apt(["libgbm-dev"])]),
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // Declares its few functions itself (see its shim.h): no pkg-config, no -pthread warning.
        .systemLibrary(name: "CPango", providers: [.apt(["libpango1.0-dev"])]),
        // epoll/timerfd/eventfd (not in Swift's Glibc module) and libdispatch's main-queue hooks.
        .systemLibrary(name: "CRunLoop"),
        // Cache prefetch hints for the loops over one heap object per layer (header only).
        .systemLibrary(name: "CPrefetch"),

        .target(name: "LaminaGeometry", swiftSettings: strict),
        // The values both sides of a commit share: layer states, render updates, contents
        // references, styles, animation effects, paths, logging (no GL, no Cairo, no layers).
        .target(name: "LaminaValues", dependencies: ["LaminaGeometry", .product(name: "Logging", package: "swift-log")],
                swiftSettings: strict),
        .target(
            name: "LaminaGPU",
            dependencies: ["CEGL", "CGLES", "CGBM", "LaminaGeometry", "LaminaValues", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict,
            plugins: ["ShaderEmbedder"]
        ),
        .target(name: "LaminaGraphics", dependencies: ["CCairo", "CPango", "LaminaGeometry", "LaminaValues"], swiftSettings: strict),
        // The model: layers and their kinds, transactions, the run loop, the model side of
        // animations; a commit produces `RenderUpdate`s. No GPU.
        .target(name: "LaminaModel", dependencies: ["CRunLoop", "CPrefetch", "LaminaGeometry", "LaminaValues", "LaminaGraphics"], swiftSettings: strict),
        // The renderer: render tree, frame building, execution, compositor, render thread,
        // caches. Consumes `RenderUpdate`s; knows no layers, transactions or Cairo.
        .target(name: "LaminaRender", dependencies: ["CPrefetch", "LaminaGeometry", "LaminaValues", "LaminaGPU"], swiftSettings: strict),
        // Where the two meet (hosts, `LayerRenderer`), re-exporting both: `import LaminaCore`.
        .target(name: "LaminaCore", dependencies: ["LaminaModel", "LaminaRender", "LaminaGeometry", "LaminaValues", "LaminaGPU"],
                swiftSettings: strict),
        .target(name: "LaminaUI", dependencies: ["LaminaCore", "LaminaGeometry", "LaminaGPU", "LaminaGraphics", "LaminaValues"], swiftSettings: strict),
        .target(name: "LaminaScene", dependencies: ["LaminaCore", "LaminaGeometry", "LaminaGPU", "LaminaGraphics", "LaminaValues"], swiftSettings: strict),
        .target(name: "LaminaTesting", dependencies: ["LaminaCore", "LaminaModel", "LaminaScene", "LaminaUI", "LaminaGeometry", "LaminaGPU",
                                                     "LaminaGraphics", "LaminaValues"], swiftSettings: strict),
        .target(name: "Lamina", dependencies: ["LaminaGeometry", "LaminaValues", "LaminaGPU", "LaminaGraphics", "LaminaModel", "LaminaRender",
                                              "LaminaCore", "LaminaScene", "LaminaUI"],
                swiftSettings: strict),

        // The C API: the header (a C target) and its implementation in Swift.
        .target(name: "CLamina", dependencies: ["CCairo"]),
        .target(name: "LaminaCAPI", dependencies: ["CLamina", "LaminaCore", "LaminaGeometry", "LaminaGPU", "LaminaGraphics", "LaminaScene", "LaminaUI", "CRunLoop",
                                                  "LaminaValues", .product(name: "Logging", package: "swift-log")],
                swiftSettings: strict),

        // Build-time tool + plugin that embed Shaders/*.vert|*.frag into LaminaGPU.
        .executableTarget(name: "EmbedShaders", path: "Tools/EmbedShaders", swiftSettings: strict),
        .plugin(name: "ShaderEmbedder", capability: .buildTool(), dependencies: ["EmbedShaders"]),
        // The Swift code of README.md and docs/*.md, compiled as functions (the docs cannot drift).
        .executableTarget(name: "ExtractSnippets", path: "Tools/ExtractSnippets", swiftSettings: strict),
        .plugin(name: "SnippetExtractor", capability: .buildTool(), dependencies: ["ExtractSnippets"]),
        .target(name: "DocSnippets", dependencies: ["Lamina", "CGLES", "LaminaTesting"], path: "Tests/DocSnippets", swiftSettings: strict,
                plugins: ["SnippetExtractor"]),

        .executableTarget(
            name: "lamina",
            dependencies: [
                "LaminaGPU", "LaminaGraphics", "LaminaGeometry", "LaminaCore", "LaminaScene", "LaminaUI",
                // `lamina bench`'s raw-GL ceiling has its own EGL context and GL calls.
                "CEGL", "CGLES",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/lamina",
            swiftSettings: strict
        ),
        // The display examples (Examples/Display, docs/gbm.md): a Lamina window on a GBM
        // swapchain, page-flipped on a KMS device or shown by a Wayland compositor through
        // zwp_linux_dmabuf_v1; run in the VM on virtio-gpu by Tools/display-tests.sh.
        .target(name: "CWayland", path: "Sources/CWayland", linkerSettings: [.linkedLibrary("wayland-client")]),
        .executableTarget(
            name: "lamina-display",
            dependencies: ["LaminaUI", "LaminaCore", "LaminaModel", "LaminaRender", "LaminaValues", "LaminaGPU", "LaminaGeometry", "CDRM", "CWayland"],
            path: "Examples/Display",
            swiftSettings: strict
        ),
        // Runs MainLoop.main from synchronous top-level code: what RunLoopTests cannot show
        // inside the test process (whose main thread belongs to Dispatch). Run by RunLoopTests.
        .executableTarget(
            name: "lamina-runloop-probe",
            dependencies: ["LaminaCore"],
            path: "Tests/RunLoopProbe",
            swiftSettings: strict
        ),
        // Helpers shared by the test targets (not a product).
        .target(name: "LaminaTestSupport", dependencies: ["LaminaModel"], path: "Tests/LaminaTestSupport", swiftSettings: strict),
        .testTarget(
            name: "LaminaCoreTests",
            dependencies: ["LaminaCore", "LaminaModel", "LaminaRender", "LaminaValues", "LaminaGPU", "LaminaGraphics", "LaminaGeometry", "CRunLoop", "CGLES",
                           "LaminaTestSupport"],
            swiftSettings: strict
        ),
        // The render module's frames, built and recorded without a GPU (no EGL is opened).
        .testTarget(
            name: "LaminaRenderTests",
            dependencies: ["LaminaRender", "LaminaModel", "LaminaValues", "LaminaGeometry", "LaminaTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LaminaGraphicsTests",
            dependencies: ["LaminaGraphics", "LaminaValues", "LaminaGeometry", "LaminaTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LaminaUITests",
            dependencies: ["LaminaUI", "LaminaCore", "LaminaModel", "LaminaRender", "LaminaValues", "LaminaGPU", "LaminaGraphics", "LaminaGeometry", "CGLES", "CEGL", "LaminaTestSupport",
                           "DocSnippets"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LaminaTestingTests",
            dependencies: ["LaminaTesting", "LaminaCore", "LaminaModel", "LaminaScene", "LaminaUI", "LaminaGeometry", "LaminaGPU", "LaminaGraphics"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LaminaSceneTests",
            dependencies: ["LaminaScene", "LaminaCore", "LaminaModel", "LaminaRender", "LaminaValues", "LaminaGPU", "LaminaGraphics", "LaminaGeometry",
                           "LaminaTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LaminaGPUTests",
            dependencies: ["LaminaGPU", "LaminaValues", "LaminaGraphics", "LaminaGeometry", "CGLES", "CGBM", "CEGL", "LaminaTestSupport",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
