import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaScene
import LaminaTestSupport

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A 64×64 scene whose root has one sublayer named "probe" with `members` (JSON members,
/// without braces).
private func probeScene(_ members: String) -> String {
    #"{"version": 1, "size": [64, 64], "background": "white", "root": {"frame": [0, 0, 64, 64], "sublayers": [{"name": "probe", "# + members + "}]}}"
}

/// `probeScene` with `animations` (the JSON array's elements, without brackets).
private func animated(_ animations: String, _ members: String = #""frame": [8, 8, 16, 16], "backgroundColor": "red""#) -> String {
    probeScene(members + #", "animations": ["# + animations + "]")
}

/// Parses with the media clock fixed at 0 (the scene's time 0 is media time 0, as
/// `lamina render` reads scenes); the clock is put back after.
@MainActor
private func parse(_ json: String, file: String = "anim.json") throws -> Scene {
    let saved: Double? = MediaClock.isFixed ? MediaClock.now() : nil
    MediaClock.set(0)
    defer { MediaClock.set(saved) }
    return try Scene.parse(Data(json.utf8), file: file, baseDirectory: repositoryRoot.appendingPathComponent("Tests/Reftests").path)
}

@MainActor
private func sceneError(_ json: String) -> SceneError? {
    do { _ = try parse(json); return nil } catch let e as SceneError { return e } catch { return nil }
}

/// The largest channel difference between two images of the same size (255 when the
/// sizes differ).
private func difference(_ a: RGBAImage, _ b: RGBAImage) -> Int {
    guard a.width == b.width, a.height == b.height else { return 255 }
    return a.difference(from: b, tolerance: 0).maxDifference
}

private func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-12) -> Bool { abs(a - b) <= tolerance }

@MainActor
@Suite("Scene files: animations", .isolatedTransactions)
struct SceneAnimationParsingTests {
    @Test("every field of a basic animation is read into the animation added to the layer")
    func basicFields() throws {
        let s = try parse(animated(#"""
            {"key": "move", "kind": "basic", "keyPath": "position", "from": [1, 2], "to": [3, 4], "beginTime": 0.5,
             "duration": 2, "speed": 1.5, "timeOffset": 0.25, "repeatCount": 3, "autoreverses": true, "fillMode": "both",
             "removedOnCompletion": false, "timingFunction": "easeIn", "additive": true, "cumulative": true},
            {"key": "nudge", "keyPath": "position.x", "by": -5, "repeatDuration": 7, "timingFunction": [0.1, -0.5, 0.9, 1.5]},
            {"key": "forever", "keyPath": "opacity", "from": 0, "repeatCount": "infinity"},
            {"key": "turn", "keyPath": "transform.rotation.z", "to": 90},
            {"key": "unnamed", "keyPath": "zPosition", "to": -3}
            """#))
        let l = s.root.sublayers[0]
        #expect(l.animationKeys() == ["move", "nudge", "forever", "turn", "unnamed"])
        let move = try #require(l.animation(forKey: "move") as? BasicAnimation)
        #expect(move.keyPath == "position" && move.fromValue == .point(Point(x: 1, y: 2)) && move.toValue == .point(Point(x: 3, y: 4)))
        #expect(move.byValue == nil)
        #expect(move.beginTime == 0.5 && move.duration == 2 && move.speed == 1.5 && move.timeOffset == 0.25)
        #expect(move.repeatCount == 3 && move.autoreverses && move.fillMode == .both && !move.isRemovedOnCompletion)
        #expect(move.timingFunction == .easeIn && move.isAdditive && move.isCumulative)
        let nudge = try #require(l.animation(forKey: "nudge") as? BasicAnimation)
        #expect(nudge.byValue == .number(-5) && nudge.repeatDuration == 7 && nudge.repeatCount == 0)
        #expect(nudge.timingFunction == TimingFunction(controlPoints: 0.1, -0.5, 0.9, 1.5))
        // Defaults: as BasicAnimation's (a duration of 0 becomes the transaction's 0.25 s when added).
        #expect(nudge.duration == 0.25 && nudge.speed == 1 && !nudge.autoreverses && nudge.fillMode == .removed)
        #expect(nudge.isRemovedOnCompletion && nudge.timingFunction != nil && !nudge.isAdditive && !nudge.isCumulative)
        let forever = try #require(l.animation(forKey: "forever") as? BasicAnimation)
        #expect(forever.repeatCount == .infinity && forever.timingFunction == nil)
        // A beginTime of 0 is the scene's start, not "when committed": the time just before 0.
        #expect(forever.beginTime < 0 && forever.beginTime > -1e-300)
        // Rotation key paths take degrees.
        let turn = try #require(l.animation(forKey: "turn") as? BasicAnimation)
        #expect(turn.toValue == .number(Double.pi / 2))
        #expect((l.animation(forKey: "unnamed") as? BasicAnimation)?.toValue == .number(-3))
    }

    @Test("every field of keyframe, spring and group animations is read")
    func otherKinds() throws {
        let s = try parse(animated(#"""
            {"key": "frames", "kind": "keyframe", "keyPath": "bounds", "values": [[0, 0, 1, 2], [0, 0, 3, 4], [1, 1, 5, 6]],
             "keyTimes": [0, 0.25, 1], "timingFunctions": ["easeOut", [0, 0, 1, 1]], "calculationMode": "cubic",
             "tensionValues": [0, 0.5, 1], "continuityValues": [-1, 0, 1], "biasValues": [0.25, 0, -0.25],
             "timingFunction": "default", "additive": false, "cumulative": true, "duration": 3},
            {"key": "steps", "kind": "keyframe", "keyPath": "backgroundColor", "values": ["red", "#00ff0080", [0, 0, 1]],
             "calculationMode": "discrete", "keyTimes": [0, 0.5, 0.75, 1]},
            {"key": "bounce", "kind": "spring", "keyPath": "bounds.size", "from": [10, 10], "to": [20, 30], "mass": 2,
             "stiffness": 300, "damping": 12, "initialVelocity": -1.5, "additive": true},
            {"key": "both", "kind": "group", "duration": 4, "fillMode": "forwards", "removedOnCompletion": false, "animations": [
                {"keyPath": "transform", "from": [{"rotate": 90}], "to": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 6, 0, 1]},
                {"kind": "group", "beginTime": 1, "duration": 2, "animations": [
                    {"kind": "keyframe", "keyPath": "contentsRect", "values": [[0, 0, 1, 1], [0.5, 0.5, 0.5, 0.5]], "calculationMode": "paced"}]}]}
            """#))
        let l = s.root.sublayers[0]
        let frames = try #require(l.animation(forKey: "frames") as? KeyframeAnimation)
        #expect(frames.keyPath == "bounds" && frames.values == [.rect(Rect(x: 0, y: 0, width: 1, height: 2)),
                                                                  .rect(Rect(x: 0, y: 0, width: 3, height: 4)),
                                                                  .rect(Rect(x: 1, y: 1, width: 5, height: 6))])
        #expect(frames.keyTimes == [0, 0.25, 1] && frames.timingFunctions == [.easeOut, .linear] && frames.calculationMode == .cubic)
        #expect(frames.tensionValues == [0, 0.5, 1] && frames.continuityValues == [-1, 0, 1] && frames.biasValues == [0.25, 0, -0.25])
        #expect(frames.timingFunction == .default && !frames.isAdditive && frames.isCumulative && frames.duration == 3)
        let steps = try #require(l.animation(forKey: "steps") as? KeyframeAnimation)
        #expect(steps.calculationMode == .discrete && steps.keyTimes == [0, 0.5, 0.75, 1])
        #expect(steps.values == [.color(.red), .color(Color(r8: 0, g8: 255, b8: 0, a8: 128)), .color(.blue)])
        let bounce = try #require(l.animation(forKey: "bounce") as? SpringAnimation)
        #expect(bounce.fromValue == .size(Size(width: 10, height: 10)) && bounce.toValue == .size(Size(width: 20, height: 30)))
        #expect(bounce.mass == 2 && bounce.stiffness == 300 && bounce.damping == 12 && bounce.initialVelocity == -1.5 && bounce.isAdditive)
        let group = try #require(l.animation(forKey: "both") as? AnimationGroup)
        #expect(group.duration == 4 && group.fillMode == .forwards && !group.isRemovedOnCompletion && group.animations.count == 2)
        let turn = try #require(group.animations[0] as? BasicAnimation)
        #expect(turn.fromValue == .transform(Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)))
        #expect(turn.toValue == .transform(Transform3D(translationX: 5, y: 6, z: 0)))
        // Members are never removed from their group: their fill mode alone decides.
        #expect(!turn.isRemovedOnCompletion && turn.beginTime == 0)
        let inner = try #require(group.animations[1] as? AnimationGroup)
        #expect(inner.beginTime == 1 && inner.duration == 2)
        let paced = try #require(inner.animations.first as? KeyframeAnimation)
        #expect(paced.calculationMode == .paced && paced.values.count == 2)
    }

    @Test("layer timing: beginTime, speed and timeOffset are set on the layer")
    func layerTiming() throws {
        let s = try parse(probeScene(#""beginTime": 2, "speed": 0.5, "timeOffset": -1, "sublayers": [{"speed": 0}]"#))
        let l = s.root.sublayers[0]
        #expect(l.beginTime == 2 && l.speed == 0.5 && l.timeOffset == -1)
        #expect(l.sublayers[0].speed == 0)
        #expect(s.startTime == 0 && s.root.beginTime == 0)
    }

    @Test("a scene with animations read while the clock runs counts its time from then: the root's beginTime is shifted")
    func startTime() throws {
        let text = animated(#"{"keyPath": "position.x", "from": 0, "to": 64, "duration": 1, "timingFunction": "linear"}"#,
                            #""bounds": [0, 0, 8, 8], "position": [0, 32], "backgroundColor": "red""#)
        let device = try GPUDevice()
        defer { device.close() }
        // (Each scene is rendered before the other is read: a render commits, and a commit
        // retires the finished animations of every layer, judged at the media time then.)
        MediaClock.set(1000)
        defer { MediaClock.set(nil) }
        let late = try Scene.parse(Data(text.utf8), file: "late.json", baseDirectory: "/")
        #expect(late.startTime == 1000 && late.root.beginTime == 1000)
        let lateImage = try late.render(device: device, time: 0.5).image
        let early = try parse(text)
        #expect(early.startTime == 0 && early.root.beginTime == 0)
        #expect(difference(lateImage, try early.render(device: device, time: 0.5).image) == 0)
        // A still scene's root keeps its beginTime.
        #expect(try Scene.parse(Data(probeScene(#""opacity": 1"#).utf8), file: "still.json", baseDirectory: "/").root.beginTime == 0)
        #expect(MediaClock.now() == 1000, "the clock is put back after rendering")
    }
}

@MainActor
@Suite("Scene files: animation errors", .isolatedTransactions)
struct SceneAnimationErrorTests {
    nonisolated static let a = "$.root.sublayers[0].animations[0]"

    /// (animation, JSON path, part of the problem).
    nonisolated static let malformedCases: [(String, String, String)] = [
        (#"{"keyPath": "opacity", "to": 1, "durtion": 1}"#, a + ".durtion", "unknown property 'durtion'"),
        (#"{"to": 1}"#, a, "missing 'keyPath'"),
        (#"{"keyPath": "hidden", "to": 1}"#, a + ".keyPath", "'hidden' is not an animatable key path"),
        (#"{"keyPath": "transform.rotation.w", "to": 1}"#, a + ".keyPath", "is not an animatable key path"),
        (#"{"keyPath": 3, "to": 1}"#, a + ".keyPath", "expected a string, found a number"),
        (#"{"keyPath": "position", "to": 3}"#, a + ".to", "expected an array, found a number ('position' takes a point [x, y])"),
        (#"{"keyPath": "opacity", "from": [1]}"#, a + ".from", "expected a number, found an array ('opacity' takes a number)"),
        (#"{"keyPath": "bounds.size", "to": [-1, 5]}"#, a + ".to", "negative size"),
        (#"{"keyPath": "bounds", "to": [0, 0, 10]}"#, a + ".to", "expected an array of 4 numbers, found 3"),
        (#"{"keyPath": "anchorPoint", "to": [1e4, 0]}"#, a + ".to[0]", "beyond the limit for anchor points"),
        (#"{"keyPath": "contentsRect", "to": [0, 0, -1, 1]}"#, a + ".to", "negative size"),
        (#"{"keyPath": "contents", "to": "nope.png"}"#, a + ".to", "missing image 'nope.png'"),
        (#"{"keyPath": "contents", "by": {"pixels": [["red"]]}}"#, a + ".by", "contents cannot be added"),
        (#"{"keyPath": "contents", "to": 3}"#, a + ".to", "('contents' takes contents"),
        (##"{"keyPath": "backgroundColor", "to": "#12"}"##, a + ".to", "is not a colour"),
        (#"{"keyPath": "borderColor", "to": 1}"#, a + ".to", "expected a colour"),
        (#"{"keyPath": "transform", "to": [{"spin": 1}]}"#, a + ".to[0].spin", "unknown property 'spin'"),
        (#"{"keyPath": "sublayerTransform", "to": {"rotate": 1}}"#, a + ".to", "expected an array, found an object ('sublayerTransform' takes a transform)"),
        (#"{"keyPath": "transform.rotation.z", "to": 1e7}"#, a + ".to", "beyond the limit for angles (degrees)"),
        (#"{"keyPath": "opacity", "to": 1e7}"#, a + ".to", "beyond the limit for animated numbers"),
        (#"{"keyPath": "colors", "to": "red"}"#, a + ".to", "expected an array, found a string ('colors' takes an array of 1 to 16 colours)"),
        (#"{"keyPath": "colors", "to": []}"#, a + ".to", "a gradient has 1 to 16 colours (got 0)"),
        (#"{"keyPath": "locations", "to": [0.5, 0.2]}"#, a + ".to", "locations increase"),
        (#"{"keyPath": "locations", "to": [0, 2]}"#, a + ".to[1]", "('locations' takes an array of numbers in 0…1, not decreasing)"),
        (#"{"keyPath": "opacity", "to": 1, "duration": -1}"#, a + ".duration", "must not be negative"),
        (#"{"keyPath": "opacity", "to": 1, "duration": 1e300}"#, a + ".duration", "beyond the limit for durations"),
        (#"{"keyPath": "opacity", "to": 1, "duration": "1s"}"#, a + ".duration", "expected a number, found a string"),
        (#"{"keyPath": "opacity", "to": 1, "duration": 1e999}"#, "$", "the number 1e999 is not representable"),
        (#"{"keyPath": "opacity", "to": 1, "beginTime": -1e300}"#, a + ".beginTime", "beyond the limit for times"),
        (#"{"keyPath": "opacity", "to": 1, "timeOffset": 1e10}"#, a + ".timeOffset", "beyond the limit for times"),
        (#"{"keyPath": "opacity", "to": 1, "speed": 1e300}"#, a + ".speed", "beyond the limit for speeds"),
        (#"{"keyPath": "opacity", "to": 1, "repeatCount": "forever"}"#, a + ".repeatCount", "expected a number ≥ 0 or \"infinity\""),
        (#"{"keyPath": "opacity", "to": 1, "repeatCount": -1}"#, a + ".repeatCount", "must not be negative"),
        (#"{"keyPath": "opacity", "to": 1, "repeatDuration": -2}"#, a + ".repeatDuration", "must not be negative"),
        (#"{"keyPath": "opacity", "to": 1, "repeatCount": 2, "repeatDuration": 2}"#, a + ".repeatCount", "not both"),
        (#"{"keyPath": "opacity", "to": 1, "autoreverses": "yes"}"#, a + ".autoreverses", "expected true or false"),
        (#"{"keyPath": "opacity", "to": 1, "fillMode": "sometimes"}"#, a + ".fillMode", "expected one of: removed, forwards, backwards, both"),
        (#"{"keyPath": "opacity", "to": 1, "removedOnCompletion": 0}"#, a + ".removedOnCompletion", "expected true or false"),
        (#"{"keyPath": "opacity", "to": 1, "timingFunction": "bouncy"}"#, a + ".timingFunction", "unknown timing function 'bouncy'"),
        (#"{"keyPath": "opacity", "to": 1, "timingFunction": [2, 0, 1, 1]}"#, a + ".timingFunction", "a control point's x must be 0…1"),
        (#"{"keyPath": "opacity", "to": 1, "timingFunction": [0, 0, 1]}"#, a + ".timingFunction", "expected an array of 4 numbers"),
        (#"{"keyPath": "opacity", "to": 1, "additive": 1}"#, a + ".additive", "expected true or false"),
        (#"{"keyPath": "opacity", "to": 1, "key": 7}"#, a + ".key", "expected a string"),
        (#"{"kind": "tween", "keyPath": "opacity", "to": 1}"#, a + ".kind", "unknown value 'tween'; expected one of: basic, keyframe, spring, group"),
        (#"{"keyPath": "opacity", "values": [0, 1]}"#, a + ".values", "'values' does not go with kind 'basic' (it goes with kind 'keyframe')"),
        (#"{"keyPath": "opacity", "mass": 1, "to": 1}"#, a + ".mass", "(it goes with kind 'spring')"),
        (#"{"keyPath": "opacity"}"#, a, "a basic animation needs 'from', 'to' or 'by'"),
        (#"{"keyPath": "opacity", "from": 0, "to": 1, "by": 1}"#, a + ".by", "at most two of 'from', 'to' and 'by'"),
        (#"{"kind": "keyframe", "keyPath": "opacity"}"#, a, "a keyframe animation needs 'values'"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": []}"#, a + ".values", "at least one value"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, "x"]}"#, a + ".values[1]", "expected a number, found a string"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "to": 1}"#, a + ".to", "'to' does not go with kind 'keyframe'"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1, 0], "keyTimes": [0, 1]}"#, a + ".keyTimes", "expected 3 key times"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1, 0], "keyTimes": [0, 0.6, 0.5]}"#, a + ".keyTimes[2]", "must not decrease"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "keyTimes": [0.1, 1]}"#, a + ".keyTimes[0]", "the first key time must be 0"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "keyTimes": [0, 0.9]}"#, a + ".keyTimes[1]", "the last key time must be 1"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "keyTimes": [0, 2]}"#, a + ".keyTimes[1]", "out of range"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "keyTimes": [0, 1], "calculationMode": "paced"}"#, a + ".keyTimes", "not used by calculationMode 'paced'"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1, 0], "timingFunctions": ["linear"]}"#, a + ".timingFunctions", "expected 2 timing functions"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "timingFunctions": ["linear"], "calculationMode": "discrete"}"#, a + ".timingFunctions", "linear and cubic keyframes only"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "tensionValues": [0, 0]}"#, a + ".tensionValues", "the cubic calculation modes only"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "biasValues": [0], "calculationMode": "cubic"}"#, a + ".biasValues", "expected an array of 2 numbers, found 1"),
        (#"{"kind": "keyframe", "keyPath": "opacity", "values": [0, 1], "calculationMode": "smooth"}"#, a + ".calculationMode", "unknown value 'smooth'"),
        (#"{"kind": "spring", "keyPath": "position.y", "to": 1, "timingFunction": "linear"}"#, a + ".timingFunction", "a spring takes no 'timingFunction'"),
        (#"{"kind": "spring", "keyPath": "position.y", "to": 1, "cumulative": true}"#, a + ".cumulative", "a spring takes no 'cumulative'"),
        (#"{"kind": "spring", "keyPath": "position.y", "to": 1, "mass": 0}"#, a + ".mass", "must be positive"),
        (#"{"kind": "spring", "keyPath": "position.y", "to": 1, "mass": 1e-9}"#, a + ".mass", "below the limit for spring mass"),
        (#"{"kind": "spring", "keyPath": "position.y", "to": 1, "stiffness": 1e7}"#, a + ".stiffness", "beyond the limit for spring parameters"),
        (#"{"kind": "spring", "keyPath": "position.y", "to": 1, "damping": -1}"#, a + ".damping", "must not be negative"),
        (#"{"kind": "spring", "keyPath": "position.y", "to": 1, "initialVelocity": -1e7}"#, a + ".initialVelocity", "beyond the limit for spring parameters"),
        (#"{"kind": "group"}"#, a, "a group needs 'animations'"),
        (#"{"keyPath": "opacity", "to": 1, "duration": "settling"}"#, a + ".duration", "\"settling\" is a spring's duration"),
        (#"{"kind": "group", "animations": {}}"#, a + ".animations", "expected an array, found an object"),
        (#"{"kind": "group", "keyPath": "opacity", "animations": []}"#, a + ".keyPath", "'keyPath' does not go with kind 'group'"),
        (#"{"kind": "group", "timingFunction": "sideways", "animations": []}"#, a + ".timingFunction", "sideways"),
        (#"{"kind": "group", "animations": [{"key": "k", "keyPath": "opacity", "to": 1}]}"#, a + ".animations[0].key", "'key' belongs to an animation added to a layer"),
        (#"{"kind": "group", "animations": [{"keyPath": "opacity", "to": 1, "removedOnCompletion": false}]}"#, a + ".animations[0].removedOnCompletion", "members are never removed"),
        (#"{"kind": "group", "animations": [{"keyPath": "opacity", "to": 1}, {"keyPath": "opacity", "to": [1]}]}"#, a + ".animations[1].to", "expected a number, found an array"),
        (#"{"keyPath": "transform", "by": [{"rotate": 10}], "cumulative": true, "repeatCount": "infinity"}"#, a + ".repeatCount", "a cumulative animation of a whole transform repeats at most 1000 times"),
        (#"{"keyPath": "opacity", "to": 1, "key": "k"}, {"keyPath": "opacity", "to": 0, "key": "k"}"#, "$.root.sublayers[0].animations[1]", "another animation of this layer has the key 'k'"),
    ]

    @Test("bad animations are errors naming the file, the JSON path and the layer", arguments: malformedCases)
    func malformed(animation: String, path: String, problem: String) throws {
        let e = try #require(sceneError(animated(animation)), "should not parse: \(animation)")
        #expect(e.file == "anim.json" && e.path == path, "\(e)")
        #expect(e.problem.contains(problem), "\(e)")
        if path != "$" { #expect(e.layer == "probe", "\(e)") }
    }

    @Test("bad layer timing and animation lists are errors naming the path", arguments: [
        (#""speed": 1e300"#, "$.root.sublayers[0].speed", "beyond the limit for speeds"),
        (#""timeOffset": "x""#, "$.root.sublayers[0].timeOffset", "expected a number, found a string"),
        (#""beginTime": -1e10"#, "$.root.sublayers[0].beginTime", "beyond the limit for times"),
        (#""animations": {}"#, "$.root.sublayers[0].animations", "expected an array, found an object"),
        (#""animations": [3]"#, "$.root.sublayers[0].animations[0]", "expected an object, found a number"),
    ])
    func malformedLayer(members: String, path: String, problem: String) throws {
        let e = try #require(sceneError(probeScene(members)), "should not parse: \(members)")
        #expect(e.path == path && e.layer == "probe", "\(e)")
        #expect(e.problem.contains(problem), "\(e)")
    }

    @Test("the animation limits: keyframes per animation and per scene, animations per scene, group nesting")
    func limits() throws {
        let many = (0...SceneLimits.maximumKeyframes).map { _ in "0" }.joined(separator: ",")
        let frames = try #require(sceneError(animated(#"{"kind": "keyframe", "keyPath": "opacity", "values": ["# + many + "]}")))
        #expect(frames.path == Self.a + ".values" && frames.problem.contains("10001 keyframes are beyond the limit (10000 an animation)"), "\(frames)")

        let full = (0..<SceneLimits.maximumKeyframes).map { _ in "0" }.joined(separator: ",")
        let count = SceneLimits.maximumSceneKeyframes / SceneLimits.maximumKeyframes
        let sceneWide = (0...count).map { _ in #"{"kind": "keyframe", "keyPath": "opacity", "values": ["# + full + "]}" }.joined(separator: ",")
        let total = try #require(sceneError(animated(sceneWide)))
        #expect(total.path == "$.root.sublayers[0].animations[\(count)].values" && total.problem.contains("more than 1000000 keyframe values in the scene"), "\(total)")

        let one = #"{"keyPath": "opacity", "to": 1}"#
        let tooMany = Array(repeating: one, count: SceneLimits.maximumAnimations + 1).joined(separator: ",")
        let animations = try #require(sceneError(animated(tooMany)))
        #expect(animations.path == "$.root.sublayers[0].animations[\(SceneLimits.maximumAnimations)]" && animations.problem.contains("more than 10000 animations in the scene"), "\(animations)")
        // At the limit, in one layer, it reads.
        _ = try parse(animated(Array(repeating: one, count: SceneLimits.maximumAnimations).joined(separator: ",")))

        func nested(_ depth: Int) -> String {
            String(repeating: #"{"kind": "group", "animations": ["#, count: depth) + one + String(repeating: "]}", count: depth)
        }
        _ = try parse(animated(nested(SceneLimits.maximumGroupDepth - 1)))
        let deep = try #require(sceneError(animated(nested(SceneLimits.maximumGroupDepth))))
        #expect(deep.problem.contains("groups nested more than 16 deep"), "\(deep)")
        // A cumulative transform repeated within the limit reads.
        _ = try parse(animated(#"{"keyPath": "transform", "by": [{"rotate": 10}], "cumulative": true, "repeatCount": 1000}"#))
    }

    @Test("a scene whose animations fail makes no layer: nothing is left queued for the next commit")
    func failedParseLeavesNothing() throws {
        try Transaction.flush()
        #expect(!Transaction.needsCommit)
        let e = sceneError(#"{"version": 1, "size": [64, 64], "root": {"sublayers": [{"animations": [{"keyPath": "opacity", "to": 1}]}, {"animations": [{"keyPath": "opacity", "to": "x"}]}]}}"#)
        #expect(e?.path == "$.root.sublayers[1].animations[0].to")
        #expect(!Transaction.needsCommit)
    }
}

@MainActor
@Suite("Scene files: animations rendered at fixed times", .isolatedTransactions)
struct SceneAnimationRenderTests {
    /// Renders `animatedText` at `time` and `stillText` (at 0), returns the largest difference.
    func compare(_ animatedText: String, at time: Double, with stillText: String, device: GPUDevice) throws -> Int {
        let a = try parse(animatedText).render(device: device, time: time).image
        let b = try parse(stillText).render(device: device).image
        return difference(a, b)
    }

    @Test("a spring at a fixed time equals the still layer at the spring's value then")
    func spring() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let solver = SpringSolver(mass: 1, stiffness: 120, damping: 6, initialVelocity: 2)
        for t in [0.0, 0.15, 0.4, 0.9] {
            let y = 10 + 40 * solver.value(at: t)
            let animatedText = animated(#"{"kind": "spring", "keyPath": "position.y", "from": 10, "to": 50, "mass": 1, "stiffness": 120, "damping": 6, "initialVelocity": 2, "duration": "settling"}"#,
                                        #""bounds": [0, 0, 10, 10], "position": [32, 50], "backgroundColor": "red""#)
            let still = probeScene(#""bounds": [0, 0, 10, 10], "position": [32, \#(y)], "backgroundColor": "red""#)
            #expect(try compare(animatedText, at: t, with: still, device: device) == 0, "at \(t) s (y \(y))")
        }
    }

    @Test("cubic keyframes, additive and cumulative animations at fixed times equal their still equivalents")
    func keyframesAndCombinations() throws {
        let device = try GPUDevice()
        defer { device.close() }
        // Cubic (Catmull-Rom) keyframes of x at 0.3 of the way.
        let x = KeyframeMath.evaluate(values: [[0], [40], [20], [50]], keyTimes: nil, timingFunctions: nil, mode: .cubic,
                                      tension: nil, continuity: nil, bias: nil, progress: 0.3)[0]
        #expect(try compare(animated(#"{"kind": "keyframe", "keyPath": "position.x", "values": [0, 40, 20, 50], "calculationMode": "cubic", "duration": 2}"#,
                                     #""bounds": [0, 0, 10, 10], "anchorPoint": [0, 0], "position": [0, 20], "backgroundColor": "blue""#),
                            at: 0.6, with: probeScene(#""bounds": [0, 0, 10, 10], "anchorPoint": [0, 0], "position": [\#(x), 20], "backgroundColor": "blue""#),
                            device: device) == 0)
        // Additive: +20 on the model's 10, half way at 0.5 s → 20; cumulative: the third
        // iteration (2.25 s of 1 s each) adds two whole changes: 2·10 + 0.25·10 = 22.5 from 0.
        #expect(try compare(animated(#"{"keyPath": "position.x", "from": 0, "to": 20, "additive": true, "duration": 1, "timingFunction": "linear"}, {"keyPath": "position.y", "from": 0, "to": 10, "cumulative": true, "repeatCount": 3, "duration": 1, "timingFunction": "linear"}"#,
                                     #""bounds": [0, 0, 10, 10], "anchorPoint": [0, 0], "position": [10, 0], "backgroundColor": "blue""#),
                            at: 2.25, with: probeScene(#""bounds": [0, 0, 10, 10], "anchorPoint": [0, 0], "position": [10, 22.5], "backgroundColor": "blue""#),
                            device: device) == 0)
        // Two animations of one property apply in order: the later one wins.
        #expect(try compare(animated(#"{"keyPath": "opacity", "to": 0.2, "duration": 10}, {"keyPath": "opacity", "from": 0.5, "to": 0.5, "duration": 10}"#),
                            at: 1, with: probeScene(#""frame": [8, 8, 16, 16], "backgroundColor": "red", "opacity": 0.5"#), device: device) == 0)
    }

    @Test("contents: a discrete keyframe animation is a flip-book, a basic one cross-fades (the exact mix of the two stills)")
    func contentsAnimations() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let frames = [#"{"pixels": [["red"]]}"#, #"{"pixels": [["green"]]}"#, #"{"pixels": [["blue"]]}"#]
        let members = #""frame": [8, 8, 16, 16], "contents": {"pixels": [["white"]]}"#
        let flip = animated(#"{"kind": "keyframe", "keyPath": "contents", "values": [\#(frames.joined(separator: ", "))], "calculationMode": "discrete", "duration": 3}"#, members)
        for (i, t) in [0.5, 1.5, 2.5].enumerated() {
            let still = probeScene(#""frame": [8, 8, 16, 16], "contents": \#(frames[i])"#)
            #expect(try compare(flip, at: t, with: still, device: device) == 0, "at \(t) s")
        }
        let fade = try parse(animated(#"{"keyPath": "contents", "from": \#(frames[0]), "to": \#(frames[2]), "duration": 1, "timingFunction": "linear"}"#, members))
        let p = try fade.render(device: device, time: 0.25).image[16, 16]
        #expect(p.maxChannelDifference(RGBAPixel(r: 191, g: 0, b: 64, a: 255)) <= 1, "\(p)")
    }

    @Test("rendering without a time renders time 0, the same every time; the clock is put back")
    func timeZero() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let text = animated(#"{"keyPath": "position.x", "from": 5, "to": 60, "duration": 0.5}"#,
                            #""bounds": [0, 0, 10, 10], "anchorPoint": [0, 0], "position": [40, 20], "backgroundColor": "red""#)
        let start = probeScene(#""bounds": [0, 0, 10, 10], "anchorPoint": [0, 0], "position": [5, 20], "backgroundColor": "red""#)
        #expect(!MediaClock.isFixed)
        // Read under the running clock: its time 0 is when it was read; rendered later, still time 0.
        let scene = try Scene.parse(Data(text.utf8), file: "t.json", baseDirectory: "/")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(difference(try scene.render(device: device).image, try parse(start).render(device: device).image) == 0)
        #expect(!MediaClock.isFixed, "the running clock is put back")
        // After the end (removed on completion): the model value.
        let end = probeScene(#""bounds": [0, 0, 10, 10], "anchorPoint": [0, 0], "position": [40, 20], "backgroundColor": "red""#)
        #expect(try compare(text, at: 3, with: end, device: device) == 0)
        #expect(throws: SceneError.self) { _ = try scene.render(device: device, time: .nan) }
    }

    @Test("the example Examples/animated.json renders at 0.4 s, and its frames change with the time")
    func example() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let path = repositoryRoot.appendingPathComponent("Examples/animated.json").path
        MediaClock.set(0)
        defer { MediaClock.set(nil) }
        let scene = try Scene.load(contentsOf: path)
        var kinds = Set<String>()
        var stack = [scene.root]
        while let l = stack.popLast() {
            for key in l.animationKeys() {
                switch l.animation(forKey: key) {
                case is SpringAnimation: kinds.insert("spring")
                case is KeyframeAnimation: kinds.insert("keyframe")
                case is AnimationGroup: kinds.insert("group")
                case let b as BasicAnimation: kinds.insert(b.keyPath)
                default: break
                }
            }
            if l.speed == 0 { kinds.insert("paused") }
            stack += l.sublayers
        }
        #expect(kinds.isSuperset(of: ["spring", "keyframe", "group", "transform.rotation.z", "opacity", "paused"]), "\(kinds)")
        let (a, stats) = try scene.render(device: device, time: 0.4)
        #expect(a.width == 480 && a.height == 320 && !stats.skipped)
        let b = try scene.render(device: device, time: 0.8).image
        #expect(difference(a, b) > 0)
        #expect(difference(a, try scene.render(device: device, time: 0.4).image) == 0)
    }
}

/// `lamina render --time` through the built executable (as Tests/LaminaGPUTests/CLITests.swift
/// runs it: the `lamina` built next to this test binary).
@MainActor
@Suite("lamina render --time", .isolatedTransactions)
struct RenderTimeCLITests {
    func runLamina(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = directory.appendingPathComponent("lamina")
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "no lamina at \(executable.path)")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "LAMINA_BACKEND")
        process.environment = env
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test("--time T renders the frame T seconds in, as Scene.render(time:) does; without it, time 0")
    func renders() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-time-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let scene = repositoryRoot.appendingPathComponent("Tests/Reftests/anim-position.json").path
        let reftests = repositoryRoot.appendingPathComponent("Tests/Reftests")
        let device = try GPUDevice()
        defer { device.close() }
        for (time, reference) in [("0.5", "anim-position-ref.json"), (nil, "anim-position-start-ref.json")] {
            let out = dir.appendingPathComponent("t-\(time ?? "none").png").path
            let run = try runLamina(["render", scene, "-o", out, "--backend", "surfaceless"] + (time.map { ["--time", $0] } ?? []))
            #expect(run.status == 0, "\(run.output)")
            let expected = try Scene.load(contentsOf: reftests.appendingPathComponent(reference).path).render(device: device).image
            #expect(difference(try RGBAImage(contentsOfPNG: out), expected) == 0, "--time \(time ?? "none")")
        }
        let example = try runLamina(["render", repositoryRoot.appendingPathComponent("Examples/animated.json").path, "--time", "0.4",
                                     "-o", dir.appendingPathComponent("x.png").path, "--backend", "surfaceless"])
        #expect(example.status == 0 && example.output.contains("480×320 px"), "\(example.output)")
    }

    @Test("--time must be a finite number ≥ 0", arguments: ["--time=-1", "--time=inf", "--time=nan"])
    func invalid(argument: String) throws {
        let scene = repositoryRoot.appendingPathComponent("Tests/Reftests/anim-position.json").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-time-\(UUID().uuidString).png").path
        let run = try runLamina(["render", scene, "-o", out, argument])
        #expect(run.status != 0)
        #expect(run.output.contains("--time must be a finite number of seconds ≥ 0"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

@MainActor
@Suite("Reftest manifests: time(T)", .isolatedTransactions)
struct ReftestTimeTests {
    func manifest(_ text: String) throws -> ReftestManifest {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-\(UUID().uuidString).list")
        defer { try? FileManager.default.removeItem(at: file) }
        try text.write(to: file, atomically: true, encoding: .utf8)
        return try ReftestManifest(contentsOf: file.path)
    }

    @Test("time(T) is read with or without fuzzy(…), in either order; without it the time is 0")
    func reads() throws {
        let m = try manifest("time(0.5) == a.json b.json\nfuzzy(1,2) time(2) != a.json b.json\ntime(1e-3) fuzzy(3,4) == a.json b.png\n== a.json b.json\n")
        #expect(m.entries.map(\.time) == [0.5, 2, 0.001, 0])
        #expect(m.entries[1].maxDifference == 1 && m.entries[1].maxDifferingPixels == 2 && m.entries[1].relation == .notEqual)
        #expect(m.entries[2].maxDifference == 3 && m.entries[2].maxDifferingPixels == 4)
    }

    @Test("a bad time(…) is an error naming the line", arguments: [
        "time(-1) == a.json b.json", "time(inf) == a.json b.json", "time(nan) == a.json b.json", "time() == a.json b.json",
        "time(0.5 == a.json b.json", "time(1) time(2) == a.json b.json", "time(0x1p3) == a.json b.json", "time(1e10) == a.json b.json",
    ])
    func bad(line: String) throws {
        do {
            _ = try manifest("== a.json b.json\n" + line + "\n")
            Issue.record("should not read: \(line)")
        } catch let e as SceneError {
            #expect(e.path == "line 2", "\(e)")
            #expect(e.problem.contains("time(") , "\(e)")
        }
    }

    @Test("time(T) applies to the test scene and to a scene reference")
    func applies() throws {
        let reftests = repositoryRoot.appendingPathComponent("Tests/Reftests").path
        let m = try manifest("""
        time(0.5) == \(reftests)/anim-position.json \(reftests)/anim-position-ref.json
        time(0.5) == \(reftests)/anim-position.json \(reftests)/anim-position.json
        time(0.25) != \(reftests)/anim-position.json \(reftests)/anim-position-ref.json
        == \(reftests)/anim-position.json \(reftests)/anim-position-ref.json
        """)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-reftest-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let results = ReftestRunner(device: try GPUDevice(), outputDirectory: out).run(m)
        #expect(results.map(\.passed) == [true, true, true, false], "\(results)")
    }

    @Test("a group's timingFunction paces its local time (Core Animation): a linear member under an easeIn group follows easeIn, from the API and from a scene file alike")
    func groupTimingFunction() throws {
        // easeIn is the cubic Bézier (0.42, 0) (1, 1): y at x = 0.5, found here by bisection.
        func bezier(_ t: Double, _ a: Double, _ b: Double) -> Double { 3 * (1 - t) * (1 - t) * t * a + 3 * (1 - t) * t * t * b + t * t * t }
        var lo = 0.0, hi = 1.0
        for _ in 0..<60 { let m = (lo + hi) / 2; if bezier(m, 0.42, 1) < 0.5 { lo = m } else { hi = m } }
        let expected = 100 * bezier((lo + hi) / 2, 0, 1)   // ≈ 31.5
        let scene = try parse(animated(#"{"kind": "group", "duration": 1, "timingFunction": "easeIn", "fillMode": "both", "animations": [{"keyPath": "position.x", "from": 0, "to": 100, "duration": 1, "timingFunction": "linear"}]}"#))
        let probe = try #require(scene.root.sublayers.first)
        MediaClock.set(0.5)
        defer { MediaClock.set(nil) }
        #expect(abs(probe.presentation().position.x - expected) < 1e-6, "\(probe.presentation().position.x) vs \(expected)")
        // The same through the API.
        let layer = Layer()
        var member = BasicAnimation(keyPath: "position.x")
        member.fromValue = .number(0); member.toValue = .number(100); member.duration = 1; member.timingFunction = .linear
        var group = AnimationGroup([member])
        group.duration = 1; group.timingFunction = .easeIn; group.fillMode = .both
        group.beginTime = 10            // (media time: the layer is in no tree, whose commit would begin it)
        layer.add(group, forKey: "g")
        MediaClock.set(10.5)
        #expect(abs(layer.presentation().position.x - expected) < 1e-6, "\(layer.presentation().position.x)")
    }

    @Test("a spring added without a duration is cut at the transaction's 0.25 s, as Core Animation's (mass 1, stiffness 100, damping 5, 10 → 110, fill forwards: it holds its value at 0.25 s); 'settling' runs it to rest")
    func springWithoutDuration() throws {
        // The damped oscillator, solved here: ω0 = 10, ζ = 0.25, at rest at 0 with zero velocity.
        func spring(_ t: Double) -> Double {
            let w0 = 10.0, z = 0.25, wd = w0 * (1 - z * z).squareRoot()
            return 10 + 100 * (1 - exp(-z * w0 * t) * (cos(wd * t) + z * w0 / wd * sin(wd * t)))
        }
        let held = spring(0.25)   // ≈ 141.1
        let cut = try parse(animated(#"{"kind": "spring", "keyPath": "position.x", "from": 10, "to": 110, "mass": 1, "stiffness": 100, "damping": 5, "fillMode": "forwards", "removedOnCompletion": false}"#))
        let full = try parse(animated(#"{"kind": "spring", "keyPath": "position.x", "from": 10, "to": 110, "mass": 1, "stiffness": 100, "damping": 5, "duration": "settling", "key": "s"}"#))
        let a = try #require(cut.root.sublayers.first), b = try #require(full.root.sublayers.first)
        defer { MediaClock.set(nil) }
        for t in [0.1, 0.2] {
            MediaClock.set(t)
            #expect(abs(a.presentation().position.x - spring(t)) < 1e-6, "t = \(t): \(a.presentation().position.x) vs \(spring(t))")
        }
        for t in [0.3, 0.5, 1.0, 2.5] {
            MediaClock.set(t)
            #expect(abs(a.presentation().position.x - held) < 1e-6, "t = \(t): held at \(held), shows \(a.presentation().position.x)")
            #expect(abs(b.presentation().position.x - spring(t)) < 1e-6, "settling, t = \(t): \(b.presentation().position.x) vs \(spring(t))")
        }
        let s = try #require(b.animation(forKey: "s"))
        #expect(s.duration > 2.5, "the settling duration: \(s.duration)")
    }
}
