// The documents' code is generated into this target (Plugins/SnippetExtractor: one
// function per ```swift block of README.md and docs/*.md), compiled with the package.

/// The number of snippets compiled, by document (the tests compare it with the documents).
public func docSnippetCounts() -> [String: Int] {
    var counts: [String: Int] = [:]
    for s in DocSnippets.all { counts[s.file, default: 0] += 1 }
    return counts
}
