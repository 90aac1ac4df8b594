import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
import LaminaTestSupport

/// Transactions are per context: the static API works on the current one, layers belong to
/// the context they were made in, and a flush commits its own context's changes only.
@Suite("Transaction contexts", .isolatedTransactions, .withoutImplicitAnimations)
@MainActor
struct TransactionContextTests {
    @Test("a flush commits the current context only; another context's changes wait for its own commit")
    func isolation() throws {
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 20, height: 20))
        let other = TransactionContext()
        // A tree in another context, hosted and committed there.
        let (otherRoot, otherHost) = try other.withCurrent { () throws -> (Layer, LayerTreeHost) in
            let root = solid(Rect(x: 0, y: 0, width: 20, height: 20), .red)
            let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
            try Transaction.flush()
            return (root, host)
        }
        #expect(otherRoot.transactionContext === other)
        #expect(otherHost.frameCount == 1)
        // A tree in this test's context.
        let root = solid(Rect(x: 0, y: 0, width: 20, height: 20), .blue)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 20, height: 20)),
                                 background: .white)
        #expect(root.transactionContext === TransactionContext.current && root.transactionContext !== other)
        otherRoot.backgroundColor = .green
        try Transaction.flush()
        #expect(host.frameCount == 1)
        #expect(otherHost.frameCount == 1, "the other context's change was committed by this context's flush")
        #expect(other.needsCommit && !Transaction.needsCommit)
        try other.withCurrent { try Transaction.flush() }
        #expect(otherHost.frameCount == 2)
        let pixel = try target.readPixels()[10, 10]
        #expect(pixel == px(0, 255, 0), "\(pixel)")
        host.detach()
        otherHost.detach()
    }

    @Test("a subtree made in another context joins the context of the tree it is added to, with its pending work")
    func adoption() throws {
        let other = TransactionContext()
        let child = other.withCurrent { () -> Layer in
            let l = Layer()
            l.frame = Rect(x: 0, y: 0, width: 10, height: 10)
            l.setNeedsDisplay()
            return l
        }
        #expect(other.needsCommit)
        let root = Layer()
        root.addSublayer(child)
        #expect(child.transactionContext === root.transactionContext)
        try other.withCurrent { try Transaction.flush() }
        #expect(child.displayCount == 0, "the moved layer left the other context's queues")
        #expect(Transaction.needsCommit)
        try Transaction.flush()
        #expect(child.displayCount == 1)
    }

    @Test("a context other than the main one: its running animations are composited by MainLoop.main's turns (its frame clock commits it), and it stops when they end")
    func animationsOfAnotherContextOnTheMainLoop() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let other = TransactionContext()
        let (root, host) = try other.withCurrent { () throws -> (Layer, LayerTreeHost) in
            let root = solid(Rect(x: 0, y: 0, width: 20, height: 20), .red)
            let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 20, height: 20)),
                                     background: .white)
            try Transaction.flush()
            var fade = BasicAnimation(keyPath: "opacity")
            fade.fromValue = .number(0)
            fade.toValue = .number(1)
            fade.duration = 0.25
            root.add(fade, forKey: "fade")
            try Transaction.flush()
            return (root, host)
        }
        defer { host.detach() }
        let before = host.frameCount
        let deadline = MonotonicClock.now() + 2
        try MainLoop.main.run(until: { root.animation(forKey: "fade") == nil || MonotonicClock.now() > deadline })
        #expect(root.animation(forKey: "fade") == nil, "the animation ended (its end was reported by a commit of its context)")
        #expect(host.frameCount - before >= 5, "frames composited while it ran: \(host.frameCount - before)")
    }

    @Test("frame requests: one per change until a commit, none while idle, one per frame while an animation runs, none after it ends")
    func frameRequests() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let context = TransactionContext.current
        let root = solid(Rect(x: 0, y: 0, width: 20, height: 20), .red)
        let child = solid(Rect(x: 0, y: 0, width: 10, height: 10), .blue)
        root.addSublayer(child)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 20, height: 20)),
                                 background: .white)
        defer { host.detach() }
        var requests = 0
        // Set while a commit is wanted (the tree is new): asked at once.
        context.frameRequestHandler = { requests += 1 }
        defer { context.frameRequestHandler = nil }
        #expect(requests == 1 && context.wantsFrame)
        try Transaction.flush()
        #expect(requests == 1 && !context.wantsFrame, "a commit that leaves nothing to show asks for nothing")
        // Idle: end-of-turn checks ask nothing.
        for _ in 0..<5 { try context.commitIfNeeded() }
        #expect(requests == 1 && host.frameCount == 1)
        // Changes coalesce into one request until the commit.
        child.backgroundColor = .green
        child.position = Point(x: 12, y: 12)
        root.setNeedsDisplay()
        #expect(requests == 2 && context.frameRequestCount >= 2)
        try context.commitIfNeeded()
        #expect(requests == 2 && host.frameCount == 2)
        // The request's frame commits the change.
        child.backgroundColor = .blue
        #expect(requests == 3 && context.wantsFrame)
        try context.commitIfNeeded()
        #expect(host.frameCount == 3 && !context.wantsFrame, "\(requests), \(host.frameCount)")
        #expect(try host.target.readPixels()[15, 15] == px(0, 0, 255))
        // An animation: each commit while it runs asks for the next frame; after it ends, none.
        context.frameRequestHandler = { requests += 1 }
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        var fade = BasicAnimation(keyPath: "opacity")
        fade.fromValue = .number(0)
        fade.toValue = .number(1)
        fade.duration = 1
        child.add(fade, forKey: "fade")
        let before = requests
        #expect(before == 4)
        for i in 1...5 {
            MediaClock.set(start + 0.1 * Double(i))
            try context.commitIfNeeded()
            #expect(requests == before + i, "frame \(i) of the animation asks for the next: \(requests - before)")
        }
        MediaClock.set(start + 2)
        try context.commitIfNeeded()      // the frame that finds it ended
        let atEnd = requests
        for _ in 0..<3 { try context.commitIfNeeded() }
        #expect(requests == atEnd && !context.wantsFrame && child.animation(forKey: "fade") == nil, "\(requests - atEnd) after the end")
    }

    @Test("frame requests of a tree composited at every host frame: none while idle (its host draws anyway), one per change, one per frame while an animation runs")
    func everyFrameRequests() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let context = TransactionContext.current
        let root = solid(Rect(x: 0, y: 0, width: 20, height: 20), .red)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 20, height: 20)),
                                 background: .white)
        defer { host.detach() }
        host.compositesEveryFrame = true
        try Transaction.flush()
        var requests = 0
        context.frameRequestHandler = { requests += 1 }
        defer { context.frameRequestHandler = nil }
        #expect(requests == 0 && context.wantsFrame, "the host composites at each of its frames, but asks for none")
        // The host's frames: each composites, none asks for the next.
        for _ in 0..<5 { try context.commitIfNeeded() }
        #expect(requests == 0 && host.frameCount >= 6, "\(requests) requests, \(host.frameCount) frames")
        root.backgroundColor = .green
        #expect(requests == 1)
        try context.commitIfNeeded()
        try context.commitIfNeeded()
        #expect(requests == 1, "the change's frame asks for no other")
        // An implicit-length animation asks once per frame while it runs.
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        var fade = BasicAnimation(keyPath: "opacity")
        fade.fromValue = .number(0)
        fade.toValue = .number(1)
        fade.duration = 1
        fade.beginTime = start
        root.add(fade, forKey: "fade")
        #expect(requests == 2)
        for i in 1...3 {
            MediaClock.set(start + 0.1 * Double(i))
            try context.commitIfNeeded()
            #expect(requests == 2 + i, "frame \(i) of the animation asks for the next")
        }
        MediaClock.set(start + 2)
        try context.commitIfNeeded()
        let atEnd = requests
        for _ in 0..<3 { try context.commitIfNeeded() }
        #expect(requests == atEnd, "\(requests - atEnd) requests after the end")
    }
}
