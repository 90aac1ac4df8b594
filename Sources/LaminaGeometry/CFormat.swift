import Glibc

/// printf-style formatting (`%.3f`, `%08X`, `%4d`) without Foundation's `String(format:)`,
/// which would bring Foundation and ICU into the library (the modules use
/// `FoundationEssentials` only; docs/c-api.md, what is installed).
package func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    withVaList(arguments) { list in
        var buffer = [CChar](repeating: 0, count: 64)
        let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
        guard needed >= buffer.count else { return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return withVaList(arguments) { again in
            var large = [CChar](repeating: 0, count: needed + 1)
            _ = vsnprintf(&large, large.count, format, again)
            return String(decoding: large.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and newlines (Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, which needs Foundation).
    package var trimmed: String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace || $0.isNewline }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
