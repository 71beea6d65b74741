import Testing

/// Runs each test of a suite on threads of its own (`ThreadPerJobExecutor`)
/// instead of Swift's cooperative pool.
///
/// The pool has one thread per core, two on CI, and Swift Testing starts
/// every test of a parallel run at once and queues them all on it. A
/// synchronous test holds a pool thread from its start to its end, and an
/// async test's every resumption waits in the pool's queue behind the tests
/// not yet run. Two tests that block for half a minute (kill loops, full
/// disks, process pairs) therefore stopped every async test in the phase:
/// in CI five of them gave up after their 60 s `Deadline` while waiting for
/// a task they had started to run at all.
///
/// Give this trait to every suite with a test that blocks a thread for more
/// than half a second of its own work. `swift test --no-parallel` prints
/// each test's own time. (`Scripts/test` also bounds how many tests run at
/// once, so a resumption waits behind a few short tests, not all of them.)
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs the tests on threads of their own, off the cooperative pool.
    public static var ownThread: Self { OwnThreadTrait() }
}
