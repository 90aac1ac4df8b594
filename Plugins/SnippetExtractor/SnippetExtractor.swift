// Build-tool plugin: turns every ```swift block of README.md and docs/*.md into a function
// of the target it is applied to (Tests/DocSnippets), so that the docs' code is compiled
// with the package: an example that no longer fits the API fails the build.
import Foundation
import PackagePlugin

@main
struct SnippetExtractor: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let docs = root.appending(path: "docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        let inputs = [root.appending(path: "README.md")] + names.map { docs.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "DocSnippets.swift")
        return [
            .buildCommand(
                displayName: "Extracting the Swift code of \(inputs.count) documents into \(target.name)",
                executable: try context.tool(named: "ExtractSnippets").url,
                arguments: [output.path, root.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}
