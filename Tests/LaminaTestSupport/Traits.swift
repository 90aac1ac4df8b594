import LaminaModel
import Testing

/// Runs a suite's tests with implicit animations off (`Transaction.disableActions()` true
/// unless a transaction sets it): suites about compositing change standalone layers of
/// rendered trees frame after frame and check each frame's pixels, as a program that sets
/// its layers every frame does (it sets `Transaction.disablesActionsByDefault`). Scoped to
/// the test's task, so the animation suites running meanwhile keep Core Animation's
/// default.
public struct WithoutImplicitAnimations: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await Transaction.$taskDisablesActions.withValue(true) { try await function() }
    }
}

extension Trait where Self == WithoutImplicitAnimations {
    public static var withoutImplicitAnimations: Self { WithoutImplicitAnimations() }
}

/// Runs each test of a suite in a transaction context of its own (`TransactionContext`):
/// its layers, hosts and commits are its own, so what another test leaves pending is
/// neither committed nor seen by it.
public struct IsolatedTransactions: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let context = await MainActor.run { TransactionContext() }
        try await TransactionContext.$entered.withValue(context) { try await function() }
    }
}

extension Trait where Self == IsolatedTransactions {
    public static var isolatedTransactions: Self { IsolatedTransactions() }
}
