import CGLES
import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaValues

/// Runs shader tests written in piglit's `shader_runner` format (`*.shader_test`) on a
/// Lamina device — `lamina shader-test FILE…` — so that GLSL ES tests run on CI without a
/// GPU (llvmpipe) and on any GPU alike. Sections: `[require]`, `[vertex shader]`,
/// `[vertex shader passthrough]`, `[fragment shader]`, `[vertex data]`, `[test]`. Test
/// commands: `uniform TYPE NAME VALUES…`, `clear color R G B A`, `clear`, `draw rect [ortho]
/// X Y W H`, `draw arrays MODE FIRST COUNT`, `probe rgba|rgb X Y …`, `probe all rgba|rgb …`,
/// `relative probe rgba|rgb (X, Y) (…)`, `probe rect rgba|rgb (X, Y, W, H) (…)`, `link
/// success`, `link error`, `tolerance T…`, `enable`/`disable CAP`. Results as piglit's: pass
/// (exit 0), fail (1, each failing probe with its expected and observed values), skip (77: a
/// requirement this device does not meet, or a command this runner does not know).
public enum ShaderTestRunner {
    public enum Outcome: Equatable, Sendable {
        case pass
        case fail(String)
        case skip(String)

        /// piglit's exit status: 0, 1, 77.
        public var exitCode: Int32 {
            switch self {
            case .pass: return 0
            case .fail: return 1
            case .skip: return 77
            }
        }
        public var name: String {
            switch self {
            case .pass: return "pass"
            case .fail: return "fail"
            case .skip: return "skip"
            }
        }
    }

    public struct Result: Sendable {
        public let file: String
        public let outcome: Outcome
        /// What the run printed (probe failures with expected and observed values, the
        /// driver's logs), one entry per message.
        public let messages: [String]
        public let probes: Int
        public let seconds: Double
    }

    /// Runs the test in the file at `path`.
    public static func run(path: String, device: GPUDevice) -> Result {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return Result(file: path, outcome: .fail("cannot read \(path)"), messages: ["cannot read \(path): check the path"], probes: 0, seconds: 0)
        }
        return run(text: text, name: path, device: device)
    }

    /// Runs a test given as text.
    public static func run(text: String, name: String, device: GPUDevice) -> Result {
        let start = MonotonicClock.now()
        var session = Session(name: name, device: device)
        let outcome: Outcome
        do {
            let script = try Script(parsing: text)
            outcome = try session.run(script)
        } catch let e as Failure {
            outcome = e.isSkip ? .skip(e.message) : .fail(e.message)
            session.messages.append(e.message)
        } catch {
            outcome = .fail("\(error)")
            session.messages.append("\(error)")
        }
        return Result(file: name, outcome: outcome, messages: session.messages, probes: session.probes,
                      seconds: MonotonicClock.now() - start)
    }

    struct Failure: Error {
        let message: String
        var isSkip = false
        static func skip(_ m: String) -> Failure { Failure(message: m, isSkip: true) }
    }

    // MARK: The file

    struct Script {
        var requirements: [(line: Int, text: String)] = []
        var vertexSource: String?
        var passthrough = false
        var fragmentSource: String?
        var vertexData: [(line: Int, text: String)] = []
        var commands: [(line: Int, text: String)] = []

        init(parsing text: String) throws {
            var section = ""
            var vertex: [String] = [], fragment: [String] = []
            for (i, raw) in text.components(separatedBy: "\n").enumerated() {
                let line = i + 1
                let trimmed = raw.trimmed
                if trimmed.hasPrefix("[") && trimmed.hasSuffix("]") {
                    section = String(trimmed.dropFirst().dropLast())
                    switch section {
                    case "require", "vertex shader", "fragment shader", "vertex data", "test": break
                    case "vertex shader passthrough": passthrough = true
                    default: throw Failure.skip("line \(line): section [\(section)] is not supported by lamina shader-test (supported: [require], [vertex shader], [vertex shader passthrough], [fragment shader], [vertex data], [test])")
                    }
                    continue
                }
                switch section {
                case "vertex shader": vertex.append(raw)
                case "fragment shader": fragment.append(raw)
                case "":
                    if !trimmed.isEmpty, !trimmed.hasPrefix("#") { throw Failure(message: "line \(line): text before the first section: \(trimmed)") }
                default:
                    let content = trimmed.components(separatedBy: "#").first!.trimmed
                    guard !content.isEmpty else { continue }
                    switch section {
                    case "require": requirements.append((line, content))
                    case "vertex data": vertexData.append((line, content))
                    case "test": commands.append((line, content))
                    default: break
                    }
                }
            }
            if !vertex.isEmpty { vertexSource = vertex.joined(separator: "\n") }
            if !fragment.isEmpty { fragmentSource = fragment.joined(separator: "\n") }
        }
    }

    // MARK: Running

    struct Session {
        let name: String
        let device: GPUDevice
        var messages: [String] = []
        var probes = 0
        var width = 250, height = 250
        var tolerance: [Float] = [0.01, 0.01, 0.01, 0.01]
        var program: Program?
        var linkError: String?

        init(name: String, device: GPUDevice) { self.name = name; self.device = device }

        mutating func run(_ script: Script) throws -> Outcome {
            try checkRequirements(script.requirements)
            let target = try GLDrawableTarget(device: device, pixelSize: PixelSize(width: width, height: height),
                                              options: GLDrawableOptions(depthStencil: .depth24Stencil8))
            defer { target.release() }
            var outcome: Outcome = .pass
            var thrown: Error?
            var me = self
            try target.draw { _ in
                do { outcome = try me.execute(script) } catch { thrown = error }
            }
            me.program?.release()
            self = me
            if let thrown { throw thrown }
            return outcome
        }

        mutating func checkRequirements(_ lines: [(line: Int, text: String)]) throws {
            let glVersion = try device.withContext { Self.string(GL_VERSION) }
            let glslVersion = try device.withContext { Self.string(GL_SHADING_LANGUAGE_VERSION) }
            let extensions = Set(device.capabilities.glExtensions)
            let es = Self.version(in: glVersion) ?? 0, esl = Self.version(in: glslVersion) ?? 0
            for (line, text) in lines {
                let words = text.split(separator: " ").map(String.init)
                func compare(_ have: Double, _ op: String, _ want: String) throws -> Bool {
                    guard let w = Double(want) else { throw Failure(message: "line \(line): '\(want)' is not a version") }
                    switch op {
                    case ">=": return have >= w - 1e-9
                    case ">": return have > w + 1e-9
                    case "<=": return have <= w + 1e-9
                    case "<": return have < w - 1e-9
                    case "==", "=": return abs(have - w) < 1e-9
                    default: throw Failure(message: "line \(line): unknown comparison '\(op)'")
                    }
                }
                if words.count == 4, words[0] == "GL", words[1] == "ES" {
                    guard try compare(es, words[2], words[3]) else { throw Failure.skip("requires OpenGL ES \(words[2]) \(words[3]); this device has \(glVersion)") }
                } else if words.count == 4, words[0] == "GLSL", words[1] == "ES" {
                    guard try compare(esl, words[2], words[3]) else { throw Failure.skip("requires GLSL ES \(words[2]) \(words[3]); this device has \(glslVersion)") }
                } else if words.count == 3, words[0] == "GL" || words[0] == "GLSL" {
                    throw Failure.skip("requires desktop \(words[0]) \(words[1]) \(words[2]); Lamina runs OpenGL ES")
                } else if words.count == 3, words[0] == "SIZE", let w = Int(words[1]), let h = Int(words[2]), w > 0, h > 0, w <= 4096, h <= 4096 {
                    width = w; height = h
                } else if words.count == 1, words[0].hasPrefix("GL_") || words[0].hasPrefix("EGL_") {
                    guard extensions.contains(words[0]) else { throw Failure.skip("requires the extension \(words[0]), which this device lacks") }
                } else if words.count == 1, words[0].hasPrefix("!GL_") {
                    guard !extensions.contains(String(words[0].dropFirst())) else { throw Failure.skip("requires the absence of \(words[0].dropFirst())") }
                } else {
                    throw Failure.skip("line \(line): requirement '\(text)' is not supported by lamina shader-test")
                }
            }
        }

        static func string(_ name: Int32) -> String {
            guard let p = glGetString(GLenum(name)) else { return "" }
            return String(cString: UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self))
        }

        /// The first "major.minor" number in a version string ("OpenGL ES 3.2 Mesa …" → 3.2;
        /// "OpenGL ES GLSL ES 3.20" → 3.2).
        static func version(in s: String) -> Double? {
            for word in s.split(separator: " ") {
                let parts = word.split(separator: ".")
                if parts.count >= 2, let major = Int(parts[0]), let minor = Int(parts[1].prefix(while: \.isNumber)) {
                    let m = String(parts[1].prefix(while: \.isNumber))
                    return Double(major) + Double(minor) / pow(10, Double(m.count))
                }
            }
            return nil
        }

        // MARK: Commands (inside the drawable's scope, its framebuffer bound)

        mutating func execute(_ script: Script) throws -> Outcome {
            link(script)
            let vertexData = try VertexData(script.vertexData)
            var failed: [String] = []
            var linkChecked = false
            for (line, text) in script.commands {
                let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                func fail(_ m: String) { failed.append("line \(line): \(m)"); messages.append("line \(line): \(m)") }
                switch words.first ?? "" {
                case "link":
                    linkChecked = true
                    if words.count == 2, words[1] == "success" {
                        if let e = linkError { fail("link success expected; the program failed:\n\(e)") }
                    } else if words.count == 2, words[1] == "error" {
                        if linkError == nil { fail("link error expected; the program linked") }
                    } else {
                        throw Failure(message: "line \(line): 'link success' or 'link error' (got '\(text)')")
                    }
                    continue
                case "tolerance":
                    let v = words.dropFirst().compactMap { Float($0) }
                    guard v.count == words.count - 1, v.count == 1 || v.count == 4 else { throw Failure(message: "line \(line): tolerance takes 1 or 4 numbers") }
                    tolerance = v.count == 1 ? Array(repeating: v[0], count: 4) : v
                    continue
                case "clear":
                    if words.count == 6, words[1] == "color" {
                        let c = try floats(words.dropFirst(2), count: 4, line: line)
                        glClearColor(c[0], c[1], c[2], c[3])
                    } else if words.count == 1 {
                        glClear(GLbitfield(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT))
                    } else {
                        throw Failure(message: "line \(line): 'clear' or 'clear color R G B A' (got '\(text)')")
                    }
                    continue
                case "enable", "disable":
                    guard words.count == 2, let cap = Self.capabilities[words[1]] else {
                        throw Failure.skip("line \(line): '\(text)' is not supported by lamina shader-test (capabilities: \(Self.capabilities.keys.sorted().joined(separator: ", ")))")
                    }
                    words[0] == "enable" ? glEnable(GLenum(cap)) : glDisable(GLenum(cap))
                    continue
                default: break
                }
                // Everything else needs the program.
                if words.first == "uniform" || words.first == "draw" {
                    guard let program else {
                        if linkChecked || linkError != nil { fail("'\(text)' needs the program, which did not link:\n\(linkError ?? "")"); return .fail(failed.joined(separator: "\n")) }
                        throw Failure(message: "line \(line): no program (give a [vertex shader] or [vertex shader passthrough] and a [fragment shader])")
                    }
                    glUseProgram(program.name)
                    if words.first == "uniform" { try setUniform(words, program: program, line: line); continue }
                    try draw(words, program: program, data: vertexData, line: line)
                    continue
                }
                if let probe = try Probe(words: words, text: text, line: line, width: width, height: height) {
                    probes += 1
                    if let m = check(probe) { fail(m) }
                    continue
                }
                throw Failure.skip("line \(line): the command '\(text)' is not supported by lamina shader-test")
            }
            if !linkChecked, let e = linkError {
                failed.append("the program failed to link:\n\(e)")
                messages.append("the program failed to link:\n\(e)")
            }
            return failed.isEmpty ? .pass : .fail(failed.joined(separator: "\n"))
        }

        static let capabilities: [String: Int32] = [
            "GL_BLEND": GL_BLEND, "GL_DEPTH_TEST": GL_DEPTH_TEST, "GL_CULL_FACE": GL_CULL_FACE,
            "GL_SCISSOR_TEST": GL_SCISSOR_TEST, "GL_STENCIL_TEST": GL_STENCIL_TEST, "GL_DITHER": GL_DITHER,
            "GL_POLYGON_OFFSET_FILL": GL_POLYGON_OFFSET_FILL, "GL_RASTERIZER_DISCARD": GL_RASTERIZER_DISCARD,
            "GL_PRIMITIVE_RESTART_FIXED_INDEX": GL_PRIMITIVE_RESTART_FIXED_INDEX,
        ]

        static let passthroughSource = """
            #version 300 es
            in vec4 piglit_vertex;
            void main() { gl_Position = piglit_vertex; }
            """

        mutating func link(_ script: Script) {
            guard let fragment = script.fragmentSource, script.passthrough || script.vertexSource != nil else { return }
            let vertex = script.passthrough ? Self.passthroughSource : script.vertexSource!
            do {
                program = try device.makeProgram(vertexSource: vertex, vertexName: script.passthrough ? "vertex shader passthrough" : "vertex shader",
                                                 fragmentSource: fragment, fragmentName: "fragment shader")
            } catch {
                linkError = "\(error)"
            }
            // (makeProgram's scope leaves the drawable bound: the framebuffer binding is kept.)
        }

        func floats(_ words: ArraySlice<String>, count: Int, line: Int) throws -> [Float] {
            let v = words.compactMap { Float($0) }
            guard v.count == count, words.count == count else { throw Failure(message: "line \(line): expected \(count) numbers, got '\(words.joined(separator: " "))'") }
            return v
        }

        func setUniform(_ words: [String], program: Program, line: Int) throws {
            guard words.count >= 4 else { throw Failure(message: "line \(line): 'uniform TYPE NAME VALUES…'") }
            let type = words[1], name = words[2], values = words.dropFirst(3)
            let location = glGetUniformLocation(program.name, name)
            guard location >= 0 else { throw Failure(message: "line \(line): the program has no active uniform '\(name)'") }
            func f(_ n: Int) throws -> [Float] { try floats(values, count: n, line: line) }
            func i(_ n: Int) throws -> [GLint] {
                let v = values.compactMap { GLint($0) }
                guard v.count == n, values.count == n else { throw Failure(message: "line \(line): expected \(n) integers") }
                return v
            }
            func u(_ n: Int) throws -> [GLuint] {
                let v = values.compactMap { GLuint($0) }
                guard v.count == n, values.count == n else { throw Failure(message: "line \(line): expected \(n) unsigned integers") }
                return v
            }
            switch type {
            case "float": glUniform1fv(location, 1, try f(1))
            case "vec2": glUniform2fv(location, 1, try f(2))
            case "vec3": glUniform3fv(location, 1, try f(3))
            case "vec4": glUniform4fv(location, 1, try f(4))
            case "int", "bool": glUniform1iv(location, 1, type == "bool" ? [values.first == "true" ? 1 : (GLint(values.first ?? "") ?? 0)] : try i(1))
            case "ivec2": glUniform2iv(location, 1, try i(2))
            case "ivec3": glUniform3iv(location, 1, try i(3))
            case "ivec4": glUniform4iv(location, 1, try i(4))
            case "uint": glUniform1uiv(location, 1, try u(1))
            case "uvec2": glUniform2uiv(location, 1, try u(2))
            case "uvec3": glUniform3uiv(location, 1, try u(3))
            case "uvec4": glUniform4uiv(location, 1, try u(4))
            case "mat2", "mat2x2": glUniformMatrix2fv(location, 1, GLboolean(GL_FALSE), try f(4))
            case "mat3", "mat3x3": glUniformMatrix3fv(location, 1, GLboolean(GL_FALSE), try f(9))
            case "mat4", "mat4x4": glUniformMatrix4fv(location, 1, GLboolean(GL_FALSE), try f(16))
            case "mat2x3": glUniformMatrix2x3fv(location, 1, GLboolean(GL_FALSE), try f(6))
            case "mat3x2": glUniformMatrix3x2fv(location, 1, GLboolean(GL_FALSE), try f(6))
            case "mat2x4": glUniformMatrix2x4fv(location, 1, GLboolean(GL_FALSE), try f(8))
            case "mat4x2": glUniformMatrix4x2fv(location, 1, GLboolean(GL_FALSE), try f(8))
            case "mat3x4": glUniformMatrix3x4fv(location, 1, GLboolean(GL_FALSE), try f(12))
            case "mat4x3": glUniformMatrix4x3fv(location, 1, GLboolean(GL_FALSE), try f(12))
            default: throw Failure.skip("line \(line): uniform type '\(type)' is not supported by lamina shader-test")
            }
            let e = glGetError()
            if e != GLenum(GL_NO_ERROR) { throw Failure(message: "line \(line): setting '\(name)' as \(type) raised GL error 0x\(String(e, radix: 16)) (is that the uniform's type?)") }
        }

        func draw(_ words: [String], program: Program, data: VertexData, line: Int) throws {
            if words.count >= 2, words[1] == "rect" {
                let ortho = words.count == 7 && words[2] == "ortho"
                guard words.count == (ortho ? 7 : 6) else { throw Failure(message: "line \(line): 'draw rect [ortho] X Y W H'") }
                var r = try floats(words.dropFirst(ortho ? 3 : 2), count: 4, line: line)
                if ortho {
                    r = [2 * r[0] / Float(width) - 1, 2 * r[1] / Float(height) - 1, 2 * r[2] / Float(width), 2 * r[3] / Float(height)]
                }
                let (x0, y0, x1, y1) = (r[0], r[1], r[0] + r[2], r[1] + r[3])
                let vertices: [Float] = [x0, y0, 0, 1, 0, 0, x1, y0, 0, 1, 1, 0, x0, y1, 0, 1, 0, 1, x1, y1, 0, 1, 1, 1]
                try withVertices(vertices, program: program, attributes: [("piglit_vertex", 4, 0), ("piglit_texcoord", 2, 4)], stride: 6) {
                    glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
                }
            } else if words.count == 5, words[1] == "arrays" {
                guard let mode = Self.modes[words[2]], let first = GLint(words[3]), let count = GLsizei(words[4]), first >= 0, count >= 0 else {
                    throw Failure(message: "line \(line): 'draw arrays MODE FIRST COUNT' (modes: \(Self.modes.keys.sorted().joined(separator: ", ")))")
                }
                guard !data.columns.isEmpty else { throw Failure(message: "line \(line): 'draw arrays' needs a [vertex data] section") }
                guard Int(first) + Int(count) <= data.rows else { throw Failure(message: "line \(line): vertices \(first)..<\(Int(first) + Int(count)) of \(data.rows)") }
                try withVertices(data.values, program: program, attributes: data.columns.map { ($0.name, $0.count, $0.offset) }, stride: data.stride) {
                    glDrawArrays(GLenum(mode), first, count)
                }
            } else {
                throw Failure.skip("line \(line): '\(words.joined(separator: " "))' is not supported by lamina shader-test (draw rect, draw arrays)")
            }
            let e = glGetError()
            if e != GLenum(GL_NO_ERROR) { throw Failure(message: "line \(line): the draw raised GL error 0x\(String(e, radix: 16))") }
        }

        static let modes: [String: Int32] = [
            "GL_POINTS": GL_POINTS, "GL_LINES": GL_LINES, "GL_LINE_STRIP": GL_LINE_STRIP, "GL_LINE_LOOP": GL_LINE_LOOP,
            "GL_TRIANGLES": GL_TRIANGLES, "GL_TRIANGLE_STRIP": GL_TRIANGLE_STRIP, "GL_TRIANGLE_FAN": GL_TRIANGLE_FAN,
        ]

        /// Floats in a buffer, the program's attributes of those names pointed at them.
        func withVertices(_ values: [Float], program: Program, attributes: [(String, Int, Int)], stride: Int, _ body: () -> Void) throws {
            var vao: GLuint = 0, vbo: GLuint = 0
            glGenVertexArrays(1, &vao)
            glBindVertexArray(vao)
            glGenBuffers(1, &vbo)
            glBindBuffer(GLenum(GL_ARRAY_BUFFER), vbo)
            glBufferData(GLenum(GL_ARRAY_BUFFER), values.count * 4, values, GLenum(GL_STATIC_DRAW))
            for (name, count, offset) in attributes {
                let location = glGetAttribLocation(program.name, name)
                guard location >= 0 else { continue }   // (the shader does not read it)
                glEnableVertexAttribArray(GLuint(location))
                glVertexAttribPointer(GLuint(location), GLint(count), GLenum(GL_FLOAT), GLboolean(GL_FALSE), GLsizei(stride * 4),
                                      UnsafeRawPointer(bitPattern: offset * 4))
            }
            body()
            glBindVertexArray(0)
            glDeleteVertexArrays(1, &vao)
            glDeleteBuffers(1, &vbo)
        }

        struct Probe {
            var rect: (x: Int, y: Int, w: Int, h: Int)
            var expected: [Float]
            var text: String
            var line: Int

            /// Parses a probe command (nil: not a probe).
            init?(words: [String], text: String, line: Int, width: Int, height: Int) throws {
                guard text.hasPrefix("probe") || text.hasPrefix("relative probe") else { return nil }
                self.text = text; self.line = line
                // Numbers anywhere after the keywords, parentheses and commas ignored.
                let cleaned = text.replacing("(", with: " ").replacing(")", with: " ").replacing(",", with: " ")
                let w = cleaned.split(separator: " ").map(String.init)
                let keywords = w.prefix { Float($0) == nil }
                let numbers = w.dropFirst(keywords.count).compactMap { Float($0) }
                guard numbers.count == w.count - keywords.count else { throw Failure(message: "line \(line): a probe's values must be numbers: '\(text)'") }
                let channels = keywords.last == "rgba" ? 4 : keywords.last == "rgb" ? 3 : 0
                guard channels > 0 else { throw Failure(message: "line \(line): a probe ends in rgba or rgb: '\(text)'") }
                let kind = keywords.dropLast().joined(separator: " ")
                func pixel(_ v: Float, _ size: Int) -> Int { min(max(Int(v), 0), size - 1) }
                switch kind {
                case "probe":
                    guard numbers.count == 2 + channels else { throw Failure(message: "line \(line): 'probe \(keywords.last!) X Y' and \(channels) values") }
                    rect = (Int(numbers[0]), Int(numbers[1]), 1, 1)
                case "relative probe":
                    guard numbers.count == 2 + channels else { throw Failure(message: "line \(line): 'relative probe \(keywords.last!) (X, Y)' and \(channels) values") }
                    rect = (pixel(numbers[0] * Float(width), width), pixel(numbers[1] * Float(height), height), 1, 1)
                case "probe all":
                    guard numbers.count == channels else { throw Failure(message: "line \(line): 'probe all \(keywords.last!)' and \(channels) values") }
                    rect = (0, 0, width, height)
                case "probe rect", "relative probe rect":
                    guard numbers.count == 4 + channels else { throw Failure(message: "line \(line): '\(kind) \(keywords.last!) (X, Y, W, H)' and \(channels) values") }
                    if kind == "relative probe rect" {
                        rect = (pixel(numbers[0] * Float(width), width), pixel(numbers[1] * Float(height), height),
                                Int(numbers[2] * Float(width)), Int(numbers[3] * Float(height)))
                    } else {
                        rect = (Int(numbers[0]), Int(numbers[1]), Int(numbers[2]), Int(numbers[3]))
                    }
                default:
                    throw Failure.skip("line \(line): the probe '\(text)' is not supported by lamina shader-test")
                }
                guard rect.x >= 0, rect.y >= 0, rect.w >= 1, rect.h >= 1, rect.x + rect.w <= width, rect.y + rect.h <= height else {
                    throw Failure(message: "line \(line): the probe's pixels \(rect) are outside the \(width)×\(height) window")
                }
                expected = Array(numbers.suffix(channels))
            }
        }

        /// Reads the probed pixels (window coordinates, origin bottom-left); a message for
        /// the first pixel off by more than the tolerance, as piglit prints it.
        func check(_ probe: Probe) -> String? {
            let r = probe.rect
            var bytes = [UInt8](repeating: 0, count: r.w * r.h * 4)
            glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
            glReadPixels(GLint(r.x), GLint(r.y), GLsizei(r.w), GLsizei(r.h), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
            let n = probe.expected.count
            var bad = 0
            var first: String?
            for j in 0..<r.h {
                for i in 0..<r.w {
                    let o = (j * r.w + i) * 4
                    let observed = (0..<n).map { Float(bytes[o + $0]) / 255 }
                    if (0..<n).contains(where: { abs(observed[$0] - probe.expected[$0]) > tolerance[$0] }) {
                        bad += 1
                        if first == nil {
                            func f(_ v: [Float]) -> String { v.map { cFormat("%.6f", $0) }.joined(separator: " ") }
                            first = "Probe color at (\(r.x + i),\(r.y + j))\n  Expected: \(f(probe.expected))\n  Observed: \(f(observed))"
                        }
                    }
                }
            }
            guard let first else { return nil }
            return "'\(probe.text)' failed" + (bad > 1 ? " at \(bad) pixels; the first:" : ":") + "\n" + first
        }
    }

    /// `[vertex data]`: a header of `name/type/count` columns, then rows of numbers.
    struct VertexData {
        struct Column { var name: String; var count: Int; var offset: Int }
        var columns: [Column] = []
        var values: [Float] = []
        var stride = 0
        var rows = 0

        init(_ lines: [(line: Int, text: String)]) throws {
            guard let header = lines.first else { return }
            for spec in header.text.split(separator: " ") {
                let parts = spec.split(separator: "/").map(String.init)
                guard parts.count == 3, parts[1] == "float" else {
                    throw Failure.skip("line \(header.line): vertex data column '\(spec)' is not supported by lamina shader-test (name/float/N)")
                }
                let count = Int(parts[2]) ?? (parts[2].hasPrefix("vec") ? Int(parts[2].dropFirst(3)) : nil)
                guard let count, (1...4).contains(count) else { throw Failure(message: "line \(header.line): column '\(spec)': 1 to 4 components") }
                columns.append(Column(name: parts[0] == "vertex" ? "piglit_vertex" : parts[0], count: count, offset: stride))
                stride += count
            }
            for (line, text) in lines.dropFirst() {
                let v = text.split(separator: " ").compactMap { Float($0) }
                guard v.count == stride else { throw Failure(message: "line \(line): \(stride) numbers per vertex (got \(v.count))") }
                values += v
                rows += 1
            }
        }
    }
}
