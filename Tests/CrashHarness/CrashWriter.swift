import Foundation
import LMDB
import ShareLog
import TestSupport

/// The writer child: opens the store (durable, `CrashStore`'s small map, its
/// own stepped clock) and performs operations until it is killed, printing a
/// `begin` line before each call and an `ack` line after it returns.
public enum CrashWriter {
    /// Where a writer incarnation starts.
    public struct Start: Sendable {
        public var store: String
        public var slot: Int
        public var seed: UInt64
        /// The number of its first operation: its slot's operations go on
        /// counting across restarts.
        public var firstNumber: Int
        /// Its clock's time for the first operation, in milliseconds.
        public var time: Int64
        /// A bound, so a writer whose parent vanished without a SIGPIPE stops.
        public var maxOperations = 1_000_000
        /// When its commits reach the disk (the power-cut harness varies it).
        public var durability: Environment.Durability = .full

        public init(store: String, slot: Int, seed: UInt64, firstNumber: Int, time: Int64) {
            self.store = store
            self.slot = slot
            self.seed = seed
            self.firstNumber = firstNumber
            self.time = time
        }
    }

    /// Runs the writer; returns only after `maxOperations` operations.
    ///
    /// - Throws: any failure of an operation, which is a bug: the parent
    ///   reports the writer's unexpected exit.
    public static func run<Workload: CrashWorkload>(_ workload: Workload, from start: Start) throws {
        let clock = SteppedClock(start.time)
        var options = CrashStore.options(clock: clock)
        options.environment.durability = start.durability
        let store = try ShareStore.open(at: start.store, creatingIfMissing: true, options: options)
        emit(CrashLine(.ready))
        var random = SeededGenerator(seed: start.seed, start.slot, start.firstNumber)
        var state = workload.makeWriterState()
        for offset in 0..<start.maxOperations {
            let time = start.time + Int64(offset) * workload.timeStep
            clock.set(time)
            let operation = workload.nextOperation(
                slot: start.slot, number: start.firstNumber + offset, time: time, state: &state, random: &random)
            emit(CrashLine(.begin, operation))
            let result = try workload.perform(operation, on: store, state: &state)
            emit(CrashLine(.ack, operation, result: result))
        }
    }

    /// Writes one line with a single `write(2)`.
    private static func emit(_ line: CrashLine) {
        FileHandle.standardOutput.write(Data(line.text.utf8))
    }
}
