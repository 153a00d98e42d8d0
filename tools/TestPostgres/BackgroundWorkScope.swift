import Testing

/// Where a test's background work runs (a PostgreSQL database's connection pool): in the
/// test's own scope, so it is cancelled and waited for when the test ends and nothing outlives
/// its test. Tests that open a database carry the trait (`.backgroundWorkScoped`, on the test
/// or its suite) and start the work with `BackgroundWorkScope.run`, which fails loudly outside one.
public final class BackgroundWorkScope: Sendable {
    @TaskLocal static var current: BackgroundWorkScope?

    private let jobs: AsyncStream<@Sendable () async -> Void>
    private let submit: AsyncStream<@Sendable () async -> Void>.Continuation

    init() {
        let (jobs, submit) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.jobs = jobs
        self.submit = submit
    }

    /// Runs `work` beside the current test until the test ends (then its task is cancelled and
    /// awaited). Throws when the test does not carry `.backgroundWorkScoped`.
    public static func run(_ work: @escaping @Sendable () async -> Void) throws {
        guard let scope = current else { throw BackgroundWorkScopeError() }
        scope.submit.yield(work)
    }

    /// `function` with every job submitted meanwhile running beside it; the jobs are cancelled
    /// and awaited once it returns or throws.
    func perform(_ function: @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [jobs] in
                await withDiscardingTaskGroup { running in
                    for await job in jobs { running.addTask { await job() } }
                }
            }
            defer {
                submit.finish()
                group.cancelAll()
            }
            try await function()
        }
    }
}

/// A test used `BackgroundWorkScope.run` without the `.backgroundWorkScoped` trait.
public struct BackgroundWorkScopeError: Error, CustomStringConvertible {
    public var description: String { "background work started outside a test carrying .backgroundWorkScoped" }
}

/// Gives each test (each case of a parameterized one) a `BackgroundWorkScope`.
public struct BackgroundWorkScopeTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let scope = BackgroundWorkScope()
        try await BackgroundWorkScope.$current.withValue(scope) { try await scope.perform(function) }
    }
}

extension Trait where Self == BackgroundWorkScopeTrait {
    /// Background work the test starts (`BackgroundWorkScope.run`) ends with the test.
    public static var backgroundWorkScoped: Self { Self() }
}
