// Build-tool plugin: embeds every GLSL file of the package's top-level Shaders/
// folder into the target it is applied to, as `EmbeddedShaders.sources`.
import Foundation
import PackagePlugin

@main
struct ShaderEmbedder: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let shaderDirectory = context.package.directoryURL.appending(path: "Shaders")
        let names = try FileManager.default.contentsOfDirectory(atPath: shaderDirectory.path)
            .filter { $0.hasSuffix(".vert") || $0.hasSuffix(".frag") }
            .sorted()
        let inputs = names.map { shaderDirectory.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedShaders.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(names.count) shaders into \(target.name)",
                executable: try context.tool(named: "EmbedShaders").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}
