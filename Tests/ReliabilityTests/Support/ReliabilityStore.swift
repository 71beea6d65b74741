import CrashHarness
import Foundation
import LMDB
import TestSupport
@testable import ShareLog

/// A store in a fresh temporary directory with a clock the test sets.
struct ReliabilityStore {
    let directory: TemporaryDirectory
    let clock: SteppedClock
    let store: ShareStore
    var path: String { store.path }

    /// 2030-01-01T00:00:00Z.
    static let start: Int64 = 1_893_456_000_000

    init(label: String = #function, durable: Bool = false, configure: (inout ShareStore.Options) -> Void = { _ in }) throws {
        directory = TemporaryDirectory(label)
        clock = SteppedClock(Self.start)
        var options = ShareStore.Options()
        options.clock = clock
        if !durable { options.environment.durability = .noSync }
        configure(&options)
        store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true, options: options)
    }

    /// A log entry the test expected is not there.
    struct MissingEntry: Error {
        let sequence: UInt64
    }

    /// Replaces the raw value of log entry `sequence` through LMDB, as damage would.
    func plant(_ value: [UInt8], atSequence sequence: UInt64) throws {
        let log = store.schema.log
        try store.environment.write { txn in try txn.put(value, forKey: Key.sequence(sequence), in: log) }
    }

    /// The raw value of log entry `sequence`.
    func rawEvent(at sequence: UInt64) throws -> [UInt8] {
        let log = store.schema.log
        guard let value = try store.environment.read({ txn in try txn.value(forKey: Key.sequence(sequence), in: log) }) else {
            throw MissingEntry(sequence: sequence)
        }
        return value
    }
}
