// Build-time tool run by the ShaderEmbedder plugin:
//   EmbedShaders OUTPUT.swift SHADER_FILE...
// Writes a Swift source file with every shader's text as a string literal, so the
// shaders are part of the binary and nothing reads the source tree at run time.
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: EmbedShaders OUTPUT.swift SHADER...\n".utf8))
    exit(2)
}

/// A Swift string literal for `text`: every character that could end or alter the
/// literal is escaped, so shader text is embedded byte for byte.
func swiftLiteral(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

var entries: [(name: String, text: String)] = []
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    do {
        let text = try String(contentsOf: url, encoding: .utf8)
        entries.append((url.lastPathComponent, text))
    } catch {
        FileHandle.standardError.write(Data("EmbedShaders: cannot read \(path): \(error)\n".utf8))
        exit(1)
    }
}
entries.sort { $0.name < $1.name }

var source = "// Generated at build time by Tools/EmbedShaders from Shaders/. Do not edit.\n"
source += "enum EmbeddedShaders {\n    static let sources: [String: String] = [\n"
for entry in entries {
    source += "        \(swiftLiteral(entry.name)): \(swiftLiteral(entry.text)),\n"
}
if entries.isEmpty { source += "        :\n" }
source += "    ]\n}\n"

do {
    let data = Data(source.utf8)
    // Leave the file untouched when nothing changed, so dependants are not rebuilt. (No
    // `exit` here: it would leave `data` unreleased, which LeakSanitizer reports when the
    // tool runs in a sanitizer build, failing that build.)
    let old = try? Data(contentsOf: URL(fileURLWithPath: output))
    if old != data { try data.write(to: URL(fileURLWithPath: output), options: .atomic) }
} catch {
    FileHandle.standardError.write(Data("EmbedShaders: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
