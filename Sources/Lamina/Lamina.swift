// The umbrella module: `import Lamina` gives the whole public API — geometry, the GPU
// layer, drawing, layers and the compositor, scene files and views.
@_exported import LaminaCore
@_exported import LaminaModel
@_exported import LaminaRender
@_exported import LaminaValues
@_exported import LaminaGeometry
@_exported import LaminaGPU
@_exported import LaminaGraphics
@_exported import LaminaScene
@_exported import LaminaUI

/// Lamina's version, `Lamina.version` ("0.5.0"; `lamina --version`, `LAMINA_VERSION` in
/// the C header).
public var version: String { LaminaVersion.string }
