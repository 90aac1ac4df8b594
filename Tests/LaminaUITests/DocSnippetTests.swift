import DocSnippets
import Foundation
import Testing

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite("Documentation code")
struct DocSnippetTests {
    @Test("every ```swift block of README.md and docs/*.md is compiled with the package (Plugins/SnippetExtractor): none is left out")
    func everyBlockIsCompiled() throws {
        let docs = repositoryRoot.appendingPathComponent("docs")
        let files = ["README.md"] + (try FileManager.default.contentsOfDirectory(atPath: docs.path)).filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        var expected: [String: Int] = [:]
        for file in files {
            let lines = try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
            var n = 0
            for (i, line) in lines.enumerated() where line.hasPrefix("```swift") {
                if i > 0, lines[i - 1] == "<!-- snippet: continues -->" { continue }
                n += 1
            }
            if n > 0 { expected[file] = n }
        }
        #expect(docSnippetCounts() == expected)
        #expect(expected.values.reduce(0, +) >= 13, "\(expected)")
    }
}
