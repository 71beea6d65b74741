import Foundation
import ShareLog
import TestSupport
import SharePrimitives

/// Writers on several replicas at once, one thread each: the shares they
/// made, by record name, once all are done.
enum ConcurrentWriters {
    /// Runs `write` for each replica on a thread of its own and merges what
    /// they made; rethrows the first error. Throws `DeadlineExceeded` when
    /// a writer still runs after `timeout`.
    static func run(
        _ replicas: [RelayReplica], timeout: Duration = .seconds(120),
        _ write: @escaping @Sendable (RelayReplica) throws -> [RecordName: [UInt8]]
    ) throws -> [RecordName: [UInt8]] {
        let results = Results()
        let done = DispatchSemaphore(value: 0)
        for replica in replicas {
            let thread = Thread {
                results.add(Result { try write(replica) })
                done.signal()
            }
            thread.start()
        }
        let deadline = Deadline("\(replicas.count) writers finish", timeout: timeout)
        for _ in replicas {
            while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut { try deadline.check() }
        }
        return try results.merged()
    }

    private final class Results: Sendable {
        private let outcomes = Locked<[Result<[RecordName: [UInt8]], any Error>]>([])

        func add(_ outcome: Result<[RecordName: [UInt8]], any Error>) { outcomes.withLock { $0.append(outcome) } }

        func merged() throws -> [RecordName: [UInt8]] {
            try outcomes.withLock { try $0.reduce(into: [:]) { $0.merge(try $1.get()) { first, _ in first } } }
        }
    }
}
