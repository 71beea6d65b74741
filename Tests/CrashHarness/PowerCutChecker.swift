import Foundation
import Glibc
import LMDB
import ShareLog

/// The checker child of a power-cut run: writes each state into the run's
/// store, in place, opens it and checks it as the crash harness does.
///
/// In place, because a store opened from another inode or directory takes a
/// new replica id (a copy must not reuse event ids), and the audit checks
/// every event's origin against the store's id: the state is what the same
/// file would hold after the reboot. It runs in its own process because a
/// damaged file can make liblmdb read a wild page and die: the parent then
/// counts that state as corrupt and starts a new checker after it.
public struct PowerCutChecker {
    public let space: PowerCutSpace
    public let states: [PowerCutState]
    /// The run's store directory.
    public let store: String
    private let workload = ShareWorkload()
    private var seen: [Int: Int] = [:]

    public init(space: PowerCutSpace, states: [PowerCutState], store: String) {
        self.space = space
        self.states = states
        self.store = store
    }

    /// Checks the states from `first` on, handing each outcome to `report`
    /// before the next state is written.
    public mutating func run(from first: Int, report: (PowerCutOutcome) -> Void) throws {
        // An hour after the writer's last operation.
        let probeTime = (space.latestTime ?? PowerCutRunner.startTime) + 3_600_000
        for index in states.indices.dropFirst(first) {
            report(try check(index, probeTime: probeTime))
        }
    }

    private mutating func check(_ index: Int, probeTime: Int64) throws -> PowerCutOutcome {
        let state = states[index]
        let bytes = space.bytes(of: state)
        let acknowledged = space.acknowledged(at: state.point)
        var hasher = Hasher()
        hasher.combine(bytes)
        hasher.combine(acknowledged)
        let key = hasher.finalize()
        if let earlier = seen[key] {
            return PowerCutOutcome(index: index, state: state, acknowledged: acknowledged, verdict: .repeated,
                                   detail: "as state \(earlier)")
        }
        seen[key] = index
        try Self.write(bytes, to: store + "/data.mdb")
        var outcome = PowerCutOutcome(index: index, state: state, acknowledged: acknowledged, verdict: .intact)
        outcome.unsynced = space.unsynced(at: state.point)
        let clock = SteppedClock(probeTime)
        var options = CrashStore.options(clock: clock)
        // The checker's own commits need not reach the disk.
        options.environment.durability = .noSync
        let opened: ShareStore
        do { opened = try ShareStore.open(at: store, options: options) } catch {
            outcome.verdict = .corrupt
            outcome.detail = "the store does not open: \(error)"
            return outcome
        }
        do {
            var invariants = CrashCheck()
            try StoreInvariants.check(opened, into: &invariants)
            if let first = invariants.violations.first {
                outcome.verdict = .corrupt
                outcome.detail = first.message
                return outcome
            }
            if let found = try lostOperations(at: state.point, acknowledged: acknowledged, in: opened) {
                let (lost, violation) = found
                outcome.verdict = lost == nil ? .corrupt : .lost
                outcome.lost = lost ?? 0
                outcome.detail = violation
                if lost == nil { return outcome }
            }
            _ = try workload.probe(number: index, time: probeTime, on: opened)
        } catch {
            outcome.verdict = .corrupt
            outcome.detail = "\(error)"
        }
        return outcome
    }

    /// Nil when every acknowledged operation is there; else the fewest last
    /// acknowledged operations whose loss explains the store (nil when none
    /// does) and the violation that the full history met.
    private func lostOperations(at point: Int, acknowledged: Int, in store: ShareStore) throws -> (Int?, String)? {
        func violations(losing count: Int) throws -> [CrashViolation] {
            try workload.check(space.history(at: point, treatingLast: count), in: store).violations
        }
        guard let first = try violations(losing: 0).first else { return nil }
        guard try violations(losing: acknowledged).isEmpty else { return (nil, first.message) }
        var (failing, passing) = (0, acknowledged)
        while passing - failing > 1 {
            let middle = (failing + passing) / 2
            if try violations(losing: middle).isEmpty { passing = middle } else { failing = middle }
        }
        return (passing, first.message)
    }

    /// Replaces the file's bytes with `bytes`, keeping its inode.
    static func write(_ bytes: [UInt8], to path: String) throws(CrashViolation) {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw CrashViolation("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(bytes.count)) == 0 else {
            throw CrashViolation("cannot truncate \(path): \(String(cString: strerror(errno)))")
        }
        var done = 0
        while done < bytes.count {
            let written = bytes[done...].withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(done)) }
            guard written > 0 else { throw CrashViolation("cannot write \(path): \(String(cString: strerror(errno)))") }
            done += written
        }
    }
}
