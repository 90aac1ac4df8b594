// LaminaCore is where the model and the renderer meet: `import LaminaCore` gives layers,
// transactions and animations (LaminaModel), the compositor and the render thread
// (LaminaRender), the values they share (LaminaValues), and the hosts that connect a layer
// tree to a render target (this module).
@_exported import LaminaModel
@_exported import LaminaRender
@_exported import LaminaValues
