import Foundation
import LaminaGeometry

/// A problem in a scene (or manifest) file: which file, where in it (a JSON path such
/// as `$.root.sublayers[2].opacity`), and what is wrong.
public struct SceneError: Error, Equatable, CustomStringConvertible, LocalizedError {
    public var file: String
    public var path: String
    public var problem: String

    public init(file: String, path: String, problem: String) {
        self.file = file; self.path = path; self.problem = problem
    }

    public var description: String { "\(file): \(path): \(problem)" }
    public var errorDescription: String? { description }
}

/// A JSON value with its path, for reading scene files with precise errors.
struct JSONNode {
    let value: Any
    let path: String
    let file: String

    func error(_ problem: String) -> SceneError { SceneError(file: file, path: path, problem: problem) }

    /// Parses JSON text; syntax errors name the line and column.
    static func parse(_ data: Data, file: String) throws -> JSONNode {
        do {
            let value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return JSONNode(value: value, path: "$", file: file)
        } catch {
            let text = String(decoding: data, as: UTF8.self)
            var problem = "not valid JSON"
            let message = "\((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error)"
            if let range = message.range(of: #"character (\d+)"#, options: .regularExpression),
               let offset = Int(message[range].split(separator: " ").last ?? "") {
                let prefix = text.utf8.prefix(offset)
                let line = prefix.filter { $0 == UInt8(ascii: "\n") }.count + 1
                let column = offset - (prefix.lastIndex(of: UInt8(ascii: "\n")).map { prefix.distance(from: prefix.startIndex, to: $0) + 1 } ?? 0) + 1
                problem += " (line \(line), column \(column))"
            }
            throw SceneError(file: file, path: "$", problem: problem + ": \(message)")
        }
    }

    var typeName: String {
        switch value {
        case is NSNull: return "null"
        case let n as NSNumber: return isBool(n) ? "a boolean" : "a number"
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "an unknown value"
        }
    }

    private func isBool(_ n: NSNumber) -> Bool { String(cString: n.objCType) == "c" }

    /// The members of an object; any key outside `allowed` is an error naming the allowed ones.
    func object(allowed: [String]) throws -> [String: JSONNode] {
        guard let dict = value as? [String: Any] else { throw error("expected an object, found \(typeName)") }
        var out: [String: JSONNode] = [:]
        for (key, v) in dict {
            let child = JSONNode(value: v, path: path + "." + key, file: file)
            guard allowed.contains(key) else {
                throw child.error("unknown property '\(key)'; allowed here: \(allowed.sorted().joined(separator: ", "))")
            }
            out[key] = child
        }
        return out
    }

    func number() throws -> Double {
        guard let n = value as? NSNumber, !isBool(n) else { throw error("expected a number, found \(typeName)") }
        let d = n.doubleValue
        guard d.isFinite else { throw error("expected a finite number") }
        return d
    }

    func number(in range: ClosedRange<Double>) throws -> Double {
        let d = try number()
        guard range.contains(d) else { throw error("\(d) is out of range: expected \(range.lowerBound)…\(range.upperBound)") }
        return d
    }

    func nonNegative() throws -> Double {
        let d = try number()
        guard d >= 0 else { throw error("must not be negative (got \(d))") }
        return d
    }

    func positive() throws -> Double {
        let d = try number()
        guard d > 0 else { throw error("must be positive (got \(d))") }
        return d
    }

    func bool() throws -> Bool {
        guard let n = value as? NSNumber, isBool(n) else { throw error("expected true or false, found \(typeName)") }
        return n.boolValue
    }

    func string() throws -> String {
        guard let s = value as? String else { throw error("expected a string, found \(typeName)") }
        return s
    }

    func array() throws -> [JSONNode] {
        guard let a = value as? [Any] else { throw error("expected an array, found \(typeName)") }
        return a.enumerated().map { JSONNode(value: $0.element, path: "\(path)[\($0.offset)]", file: file) }
    }

    func numbers(count: ClosedRange<Int>) throws -> [Double] {
        let a = try array()
        guard count.contains(a.count) else {
            let want = count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)"
            throw error("expected an array of \(want) numbers, found \(a.count)")
        }
        return try a.map { try $0.number() }
    }

    func point() throws -> Point {
        let v = try numbers(count: 2...2)
        return Point(x: v[0], y: v[1])
    }

    /// [width, height], neither negative.
    func size() throws -> Size {
        let v = try numbers(count: 2...2)
        guard v[0] >= 0, v[1] >= 0 else { throw error("negative size \(v[0])×\(v[1]): width and height must not be negative") }
        return Size(width: v[0], height: v[1])
    }

    /// [x, y, width, height], width and height not negative.
    func rect() throws -> Rect {
        let v = try numbers(count: 4...4)
        guard v[2] >= 0, v[3] >= 0 else { throw error("negative size \(v[2])×\(v[3]): width and height must not be negative") }
        return Rect(x: v[0], y: v[1], width: v[2], height: v[3])
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
        if let s = value as? String {
            if let named = JSONNode.namedColors[s.lowercased()] { return named }
            var hex = Substring(s)
            guard hex.first == "#" else {
                throw error("unknown colour '\(s)'; use #rrggbb, #rrggbbaa, #rgb, [r, g, b, a] or one of: \(JSONNode.namedColors.keys.sorted().joined(separator: ", "))")
            }
            hex = hex.dropFirst()
            if hex.count == 3 { hex = Substring(hex.map { "\($0)\($0)" }.joined()) }
            guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else {
                throw error("'\(s)' is not a colour: expected #rgb, #rrggbb or #rrggbbaa")
            }
            let full = hex.count == 6 ? (v << 8) | 0xff : v
            return Color(r8: UInt8(full >> 24), g8: UInt8((full >> 16) & 0xff), b8: UInt8((full >> 8) & 0xff), a8: UInt8(full & 0xff))
        }
        if value is [Any] {
            let v = try numbers(count: 3...4)
            for (i, c) in v.enumerated() where !(0...1).contains(c) {
                throw JSONNode(value: c, path: "\(path)[\(i)]", file: file).error("colour components are 0…1 (got \(c))")
            }
            return Color(red: v[0], green: v[1], blue: v[2], alpha: v.count == 4 ? v[3] : 1)
        }
        throw error("expected a colour (\"#rrggbb\", a name or [r, g, b, a]), found \(typeName)")
    }
}
