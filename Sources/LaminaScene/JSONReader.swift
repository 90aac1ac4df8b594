import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaValues

/// A problem in a scene (or manifest) file: which file, where in it (a JSON path such
/// as `$.root.sublayers[2].opacity`), the name of the layer concerned when it has one,
/// and what is wrong.
public struct SceneError: Error, Equatable, CustomStringConvertible, LocalizedError {
    public var file: String
    public var path: String
    public var problem: String
    /// The `name` of the layer the problem is in (nil: the layer has no name, or the
    /// problem is not inside a layer).
    public var layer: String?

    public init(file: String, path: String, problem: String, layer: String? = nil) {
        self.file = file; self.path = path; self.problem = problem; self.layer = layer
    }

    public var description: String {
        "\(file): \(path): \(layer.map { "layer '\($0)': " } ?? "")\(problem)"
    }
    public var errorDescription: String? { description }
}

/// A parsed JSON text, stored flat (one entry per value, children by index): no value
/// holds another, so neither reading nor freeing a deeply nested document recurses.
final class JSONDocument {
    enum Value {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Int])
        /// Members in the file's order (keys are unique: duplicates are a syntax error).
        case object([(key: String, index: Int)])
    }

    /// How a value is reached from its container (for JSON paths).
    enum Step { case top, key(String), index(Int) }

    private(set) var values: [Value] = []
    private(set) var parents: [Int] = []
    private(set) var steps: [Step] = []
    /// 1-based line and column of each value's first character.
    private(set) var locations: [(line: Int, column: Int)] = []

    /// Nesting deeper than this (arrays and objects inside each other) is an error.
    /// A chain of N sublayers nests 2N + 2 levels deep (each layer is an object holding a
    /// `sublayers` array), so 100 000 allows chains of about 50 000 layers.
    static let maximumDepth = 100_000

    /// The JSON path of value `index`, e.g. `$.root.sublayers[2].opacity`; a path of more
    /// than 40 steps shows its first and last 16 (`$.root…(968 steps)….sublayers[0]`).
    func path(of index: Int) -> String {
        var parts: [String] = []
        var i = index
        while i >= 0 {
            switch steps[i] {
            case .top: parts.append("$")
            case .key(let k): parts.append("." + k)
            case .index(let n): parts.append("[\(n)]")
            }
            i = parents[i]
        }
        parts.reverse()
        guard parts.count > 40 else { return parts.joined() }
        return parts.prefix(16).joined() + "…(\(parts.count - 32) steps)…" + parts.suffix(16).joined()
    }

    /// Parses `data` (UTF-8 JSON, RFC 8259: one value, any type); errors carry the line
    /// and column. Iterative: the depth is limited by `maximumDepth` only.
    init(_ data: Data, file: String) throws {
        var p = JSONParser(bytes: [UInt8](data), file: file)
        try p.parse(into: self)
    }

    fileprivate func append(_ value: Value, parent: Int, step: Step, at location: (line: Int, column: Int)) -> Int {
        values.append(value); parents.append(parent); steps.append(step); locations.append(location)
        return values.count - 1
    }

    fileprivate func set(_ index: Int, _ value: Value) { values[index] = value }
}

/// The reader behind `JSONDocument`: a byte scanner with an explicit stack of open
/// containers.
private struct JSONParser {
    let bytes: [UInt8]
    let file: String
    var i = 0
    var line = 1
    /// Offset of the current line's first byte (columns count bytes from it, 1-based).
    var lineStart = 0

    init(bytes: [UInt8], file: String) { self.bytes = bytes; self.file = file }

    var column: Int { i - lineStart + 1 }
    var location: (line: Int, column: Int) { (line, column) }

    func fail(_ problem: String, at location: (line: Int, column: Int)? = nil, path: String = "$") -> SceneError {
        let l = location ?? self.location
        return SceneError(file: file, path: path, problem: "not valid JSON (line \(l.line), column \(l.column)): \(problem)")
    }

    func describeHere() -> String {
        guard i < bytes.count else { return "unexpected end of file" }
        let b = bytes[i]
        if b >= 0x20 && b < 0x7f { return "unexpected character '\(Character(Unicode.Scalar(b)))'" }
        return "unexpected byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0D: i += 1
            case 0x0A: i += 1; line += 1; lineStart = i
            default: return
            }
        }
    }

    /// One open container: its value index, what it holds so far, and (objects) the key
    /// waiting for its value.
    struct Open {
        var index: Int
        var isObject: Bool
        var elements: [Int] = []
        var members: [(key: String, index: Int)] = []
        var keys: Set<String> = []
        var pendingKey: String?
    }

    mutating func parse(into doc: JSONDocument) throws {
        var stack: [Open] = []
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3; lineStart = 3 }   // a UTF-8 byte order mark
        skipWhitespace()
        // Reads one value's start; scalars are complete, containers are pushed.
        func startValue(_ p: inout JSONParser, parent: Int, step: JSONDocument.Step, stack: inout [Open]) throws {
            guard p.i < p.bytes.count else { throw p.fail("unexpected end of file: expected a value") }
            let at = p.location
            switch p.bytes[p.i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < JSONDocument.maximumDepth else {
                    throw p.fail("nesting deeper than \(JSONDocument.maximumDepth) levels (the reader's limit): flatten the structure")
                }
                let isObject = p.bytes[p.i] == UInt8(ascii: "{")
                p.i += 1
                let index = doc.append(isObject ? .object([]) : .array([]), parent: parent, step: step, at: at)
                stack.append(Open(index: index, isObject: isObject))
            case UInt8(ascii: "\""):
                _ = doc.append(.string(try p.string()), parent: parent, step: step, at: at)
            case UInt8(ascii: "t"):
                try p.literal("true"); _ = doc.append(.bool(true), parent: parent, step: step, at: at)
            case UInt8(ascii: "f"):
                try p.literal("false"); _ = doc.append(.bool(false), parent: parent, step: step, at: at)
            case UInt8(ascii: "n"):
                try p.literal("null"); _ = doc.append(.null, parent: parent, step: step, at: at)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                _ = doc.append(.number(try p.number()), parent: parent, step: step, at: at)
            default:
                throw p.fail(p.describeHere() + ": expected a value (object, array, string, number, true, false or null)")
            }
        }

        try startValue(&self, parent: -1, step: .top, stack: &stack)
        while !stack.isEmpty {
            skipWhitespace()
            let top = stack.count - 1
            let open = stack[top]
            let isFirst = open.isObject ? open.members.isEmpty && open.pendingKey == nil : open.elements.isEmpty
            guard i < bytes.count else {
                throw fail("unexpected end of file: the \(open.isObject ? "object" : "array") opened at line \(doc.locations[open.index].line), column \(doc.locations[open.index].column) is not closed")
            }
            let close = UInt8(ascii: open.isObject ? "}" : "]")
            if bytes[i] == close && isFirst {
                i += 1
                try finish(&stack, doc)
                continue
            }
            if !isFirst {
                if bytes[i] == close { i += 1; try finish(&stack, doc); continue }
                guard bytes[i] == UInt8(ascii: ",") else {
                    throw fail(describeHere() + ": expected ',' or '\(Character(Unicode.Scalar(close)))'")
                }
                i += 1
                skipWhitespace()
            }
            if open.isObject {
                guard i < bytes.count else { throw fail("unexpected end of file: expected a key") }
                guard bytes[i] == UInt8(ascii: "\"") else { throw fail(describeHere() + ": expected a key (a string in double quotes)") }
                let keyAt = location
                let key = try string()
                if stack[top].keys.contains(key) {
                    throw fail("duplicate key '\(key)' (each key may appear once in an object)", at: keyAt,
                                path: doc.path(of: open.index) + "." + key)
                }
                skipWhitespace()
                guard i < bytes.count else { throw fail("unexpected end of file: expected ':' after key '\(key)'") }
                guard bytes[i] == UInt8(ascii: ":") else { throw fail(describeHere() + ": expected ':' after key '\(key)'") }
                i += 1
                skipWhitespace()
                stack[top].keys.insert(key)
                let before = doc.values.count
                try startValue(&self, parent: open.index, step: .key(key), stack: &stack)
                stack[top].members.append((key, before))
            } else {
                let before = doc.values.count
                try startValue(&self, parent: open.index, step: .index(open.elements.count), stack: &stack)
                stack[top].elements.append(before)
            }
        }
        skipWhitespace()
        guard i == bytes.count else { throw fail(describeHere() + " after the end of the JSON value") }
    }

    /// Closes the top container: its value gets its children.
    private func finish(_ stack: inout [Open], _ doc: JSONDocument) throws {
        let open = stack.removeLast()
        doc.set(open.index, open.isObject ? .object(open.members) : .array(open.elements))
    }

    mutating func literal(_ word: String) throws {
        let at = location
        for b in word.utf8 {
            guard i < bytes.count else { throw fail("unexpected end of file in '\(word)'", at: at) }
            guard bytes[i] == b else { throw fail("unknown word (expected '\(word)')", at: at) }
            i += 1
        }
    }

    mutating func number() throws -> Double {
        let at = location
        let start = i
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.i
            while p.i < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.i]) { p.i += 1 }
            return p.i - s
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count else { throw fail("unexpected end of file in a number", at: at) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else if digits(&self) == 0 {
            throw fail("a number needs digits after '-'", at: at)
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits(&self) > 0 else { throw fail("a number needs digits after '.'", at: at) }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits(&self) > 0 else { throw fail("a number needs digits in its exponent", at: at) }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            throw fail("the number \(text.count > 40 ? String(text.prefix(40)) + "…" : text) is not representable (beyond ±1.8e308)", at: at)
        }
        return v
    }

    mutating func string() throws -> String {
        let at = location
        i += 1   // the opening quote
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unexpected end of file in the string starting here", at: at) }
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""):
                i += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw fail("the string is not valid UTF-8", at: at) }
                return s
            case UInt8(ascii: "\\"):
                i += 1
                guard i < bytes.count else { throw fail("unexpected end of file in an escape", at: at) }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("a lone UTF-16 surrogate \\u\(String(scalar, radix: 16)) (expected a low surrogate after it)")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("\\u\(String(low, radix: 16)) is not a low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("a lone UTF-16 surrogate \\u\(String(scalar, radix: 16))")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    i -= 1
                    throw fail("unknown escape '\\\(Character(Unicode.Scalar(e)))' (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
                }
            case 0x00..<0x20:
                throw fail("a control character (0x\(String(b, radix: 16))) inside a string: escape it (e.g. \\n)")
            default:
                out.append(b)
                i += 1
            }
        }
    }

    mutating func hex4() throws -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < bytes.count else { throw fail("unexpected end of file in \\u escape") }
            guard let d = Character(Unicode.Scalar(bytes[i])).hexDigitValue else { throw fail("\\u needs four hex digits") }
            v = v * 16 + UInt32(d)
            i += 1
        }
        return v
    }
}

/// A JSON value in a document, for reading scene files with precise errors.
struct JSONNode {
    let document: JSONDocument
    let index: Int
    let file: String

    var value: JSONDocument.Value { document.values[index] }
    var path: String { document.path(of: index) }
    var line: Int { document.locations[index].line }

    func error(_ problem: String) -> SceneError { SceneError(file: file, path: path, problem: problem) }

    /// Parses JSON text; syntax errors name the line and column.
    static func parse(_ data: Data, file: String) throws -> JSONNode {
        JSONNode(document: try JSONDocument(data, file: file), index: 0, file: file)
    }

    private func node(_ i: Int) -> JSONNode { JSONNode(document: document, index: i, file: file) }

    var typeName: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    var isNumber: Bool { if case .number = value { return true } else { return false } }
    var isArray: Bool { if case .array = value { return true } else { return false } }
    var isObject: Bool { if case .object = value { return true } else { return false } }
    var stringValue: String? { if case .string(let s) = value { return s } else { return nil } }

    /// The members of an object whose keys are names the file chooses (a shader's uniforms), in order.
    func members() throws -> [(key: String, node: JSONNode)] {
        guard case .object(let members) = value else { throw error("expected an object, found \(typeName)") }
        return members.map { ($0.key, node($0.index)) }
    }

    /// The members of an object; any key outside `allowed` is an error naming the allowed ones.
    func object(allowed: [String]) throws -> [String: JSONNode] {
        guard case .object(let members) = value else { throw error("expected an object, found \(typeName)") }
        var out: [String: JSONNode] = [:]
        for (key, i) in members {
            guard allowed.contains(key) else {
                throw node(i).error("unknown property '\(key)'; allowed here: \(allowed.sorted().joined(separator: ", "))")
            }
            out[key] = node(i)
        }
        return out
    }

    func number() throws -> Double {
        guard case .number(let d) = value else { throw error("expected a number, found \(typeName)") }
        guard d.isFinite else { throw error("expected a finite number") }
        return d
    }

    func number(in range: ClosedRange<Double>) throws -> Double {
        let d = try number()
        guard range.contains(d) else { throw error("\(d) is out of range: expected \(range.lowerBound)…\(range.upperBound)") }
        return d
    }

    /// A number whose magnitude is at most `limit` (`what` names the limit in the message).
    func number(magnitude limit: Double, _ what: String) throws -> Double {
        let d = try number()
        guard abs(d) <= limit else { throw error("\(d) is beyond the limit for \(what) (±\(SceneLimits.format(limit)))") }
        return d
    }

    func nonNegative() throws -> Double {
        let d = try number()
        guard d >= 0 else { throw error("must not be negative (got \(d))") }
        return d
    }

    /// 0…`limit`.
    func nonNegative(atMost limit: Double, _ what: String) throws -> Double {
        let d = try nonNegative()
        guard d <= limit else { throw error("\(d) is beyond the limit for \(what) (\(SceneLimits.format(limit)))") }
        return d
    }

    func positive() throws -> Double {
        let d = try number()
        guard d > 0 else { throw error("must be positive (got \(d))") }
        return d
    }

    /// Above 0, at most `limit`.
    func positive(atMost limit: Double, _ what: String) throws -> Double {
        let d = try positive()
        guard d <= limit else { throw error("\(d) is beyond the limit for \(what) (\(SceneLimits.format(limit)))") }
        return d
    }

    /// A scale (pixels per point): in `PixelScale.range`, at most `limit`.
    func scale(atMost limit: Double, _ what: String) throws -> Double {
        let d = try positive(atMost: limit, what)
        guard PixelScale.isValid(d) else { throw error("\(d) is below the limit for \(what) (1/4096, `PixelScale`)") }
        return d
    }

    func bool() throws -> Bool {
        guard case .bool(let b) = value else { throw error("expected true or false, found \(typeName)") }
        return b
    }

    func string() throws -> String {
        guard case .string(let s) = value else { throw error("expected a string, found \(typeName)") }
        return s
    }

    func array() throws -> [JSONNode] {
        guard case .array(let a) = value else { throw error("expected an array, found \(typeName)") }
        return a.map(node)
    }

    /// `count` numbers, each within ±`magnitude`.
    func numbers(count: ClosedRange<Int>, magnitude: Double = SceneLimits.maximumCoordinate, _ what: String = "coordinates") throws -> [Double] {
        let a = try array()
        guard count.contains(a.count) else {
            let want = count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)"
            throw error("expected an array of \(want) numbers, found \(a.count)")
        }
        return try a.map { try $0.number(magnitude: magnitude, what) }
    }

    func point() throws -> Point {
        let v = try numbers(count: 2...2)
        return Point(x: v[0], y: v[1])
    }

    /// [width, height], neither negative nor above the size limit.
    func size() throws -> Size {
        let a = try array()
        guard a.count == 2 else { throw error("expected an array of 2 numbers, found \(a.count)") }
        let w = try a[0].number(), h = try a[1].number()
        guard w >= 0, h >= 0 else { throw error("negative size \(w)×\(h): width and height must not be negative") }
        _ = try a[0].nonNegative(atMost: SceneLimits.maximumSize, "sizes")
        _ = try a[1].nonNegative(atMost: SceneLimits.maximumSize, "sizes")
        return Size(width: w, height: h)
    }

    /// [x, y, width, height]: x and y within the coordinate limit, width and height not
    /// negative and within the size limit.
    func rect() throws -> Rect {
        let a = try array()
        guard a.count == 4 else { throw error("expected an array of 4 numbers, found \(a.count)") }
        let x = try a[0].number(magnitude: SceneLimits.maximumCoordinate, "coordinates")
        let y = try a[1].number(magnitude: SceneLimits.maximumCoordinate, "coordinates")
        let w = try a[2].number(), h = try a[3].number()
        guard w >= 0, h >= 0 else { throw error("negative size \(w)×\(h): width and height must not be negative") }
        _ = try a[2].nonNegative(atMost: SceneLimits.maximumSize, "sizes")
        _ = try a[3].nonNegative(atMost: SceneLimits.maximumSize, "sizes")
        return Rect(x: x, y: y, width: w, height: h)
    }

    func oneOf<T: RawRepresentable>(_ type: T.Type) throws -> T where T.RawValue == String, T: CaseIterable {
        let s = try string()
        guard let v = T(rawValue: s) else {
            throw error("unknown value '\(s)'; expected one of: \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return v
    }

    static let namedColors: [String: Color] = [
        "clear": .clear, "black": .black, "white": .white, "red": .red, "green": .green, "blue": .blue,
        "yellow": .yellow, "cyan": .cyan, "magenta": .magenta,
        "gray": Color(red: 0.5, green: 0.5, blue: 0.5), "orange": Color(red: 1, green: 0.5, blue: 0),
    ]

    /// "#rgb", "#rrggbb", "#rrggbbaa", a name, or [r, g, b(, a)] in 0…1.
    func color() throws -> Color {
        if let s = stringValue {
            if let named = JSONNode.namedColors[s.lowercased()] { return named }
            var hex = Substring(s)
            guard hex.first == "#" else {
                let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
                throw error("unknown colour '\(shown)'; use #rrggbb, #rrggbbaa, #rgb, [r, g, b, a] or one of: \(JSONNode.namedColors.keys.sorted().joined(separator: ", "))")
            }
            hex = hex.dropFirst()
            if hex.count == 3 { hex = Substring(hex.map { "\($0)\($0)" }.joined()) }
            guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else {
                let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
                throw error("'\(shown)' is not a colour: expected #rgb, #rrggbb or #rrggbbaa")
            }
            let full = hex.count == 6 ? (v << 8) | 0xff : v
            return Color(r8: UInt8(full >> 24), g8: UInt8((full >> 16) & 0xff), b8: UInt8((full >> 8) & 0xff), a8: UInt8(full & 0xff))
        }
        if isArray {
            let items = try array()
            guard (3...4).contains(items.count) else { throw error("expected an array of 3 to 4 numbers, found \(items.count)") }
            var v: [Double] = []
            for item in items {
                let c = try item.number()
                guard (0...1).contains(c) else { throw item.error("colour components are 0…1 (got \(c))") }
                v.append(c)
            }
            return Color(red: v[0], green: v[1], blue: v[2], alpha: v.count == 4 ? v[3] : 1)
        }
        throw error("expected a colour (\"#rrggbb\", a name or [r, g, b, a]), found \(typeName)")
    }
}
