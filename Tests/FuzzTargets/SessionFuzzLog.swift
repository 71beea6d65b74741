import Foundation
import ShareLog
@testable import ShareSync

/// This store's log as a sending side's driver reads it for the peer, in
/// place of a `ShareStore`: what `replicationBatch(after:inEpoch:…)` and
/// `snapshotBatch(after:…)` would give, so the machine sees only answers a
/// real driver can give. Positions 1 through `end` hold an event each (of
/// this store's own origin, counter = position), the first
/// `trimmedThrough` are trimmed, the epoch never changes; commits only make
/// the log longer, trims only move the horizon up (`work(_:)`).
///
/// Each read takes one choice byte: bits 0–1 entries committed just before
/// it, bits 2–4 how far past `after` it reaches (1–8 positions, up to the
/// end), bits 5–6 how many of those entries it sends (at most all: the
/// others are the peer's own, skipped).
struct SessionFuzzLog {
    static let epoch = Epoch(uuid: UUID(uuidString: "2b8e6c1d-4f3a-4e5b-8c7d-6e5f4a3b2c1d")!)
    static let replica = ReplicaID(uuid: UUID(uuidString: "0fe35a84-f35d-4249-a734-328f62a39781")!)

    private(set) var end: UInt64
    private(set) var trimmedThrough: UInt64

    init(end: UInt64, trimmedThrough: UInt64) {
        self.end = end
        self.trimmedThrough = trimmedThrough
    }

    /// Other processes at work: bits 0–1 of `choice` events committed,
    /// bit 2 a trim (`ShareStore.trim`) of the next 1–4 positions, up to
    /// the end, so that a pull under way can fall behind the horizon.
    mutating func work(_ choice: UInt8) {
        commit(UInt64(choice & 3))
        if choice & 4 != 0 { trimmedThrough = min(end, trimmedThrough + 1 + UInt64(choice >> 3 & 3)) }
    }

    private mutating func commit(_ count: UInt64) { end += count }

    /// `.readLog(after:epoch:maxBytes:)`, answered as `ShareStore` does.
    ///
    /// - Throws: `FuzzViolation` for a read the store traps on (its
    ///   preconditions: a position needs its epoch, a batch holds at least
    ///   one event).
    mutating func read(after: UInt64, epoch: Epoch?, maxBytes: Int, choice: UInt8) throws(FuzzViolation) -> LogRead {
        try FuzzViolation.check(epoch != nil || after == 0, "the machine asked to read after position \(after) with no epoch: ShareStore traps")
        try FuzzViolation.check(maxBytes > 0, "the machine asked to read at most \(maxBytes) bytes: ShareStore traps")
        commit(UInt64(choice & 3))
        if let epoch, epoch != Self.epoch { return .snapshotRequired(.epochUnknown(cursor: epoch, current: Self.epoch), current: Self.epoch) }
        guard after <= end else { return .snapshotRequired(.cursorAhead(position: after, lastPosition: end), current: Self.epoch) }
        guard after >= trimmedThrough else { return .snapshotRequired(.behindHorizon(position: after, horizon: trimmedThrough), current: Self.epoch) }
        return .batch(part(after: after, choice: choice))
    }

    /// `.readSnapshot(after:maxBytes:)`, answered as `ShareStore` does.
    mutating func snapshot(after: UInt64, maxBytes: Int, choice: UInt8) throws(FuzzViolation) -> ReplicationBatch {
        try FuzzViolation.check(maxBytes > 0, "the machine asked for a snapshot part of at most \(maxBytes) bytes: ShareStore traps")
        commit(UInt64(choice & 3))
        return part(after: after, choice: choice)
    }

    /// The entries after `after`, or, at the end, none and `through` the end.
    private func part(after: UInt64, choice: UInt8) -> ReplicationBatch {
        guard after < end else { return ReplicationBatch(events: [], through: max(after, end), lastPosition: end, bytes: 0, epoch: Self.epoch) }
        let through = min(end, after + 1 + UInt64(choice >> 2 & 7))
        let count = min(UInt64(choice >> 5 & 3), through - after)
        let events = (through - count + 1..<through + 1).map { position in
            Event(id: EventID(origin: Self.replica, counter: position), kind: .unknown(code: 9, flags: 0, payload: []))
        }
        let bytes = events.reduce(0) { $0 + EventCodec.encode($1).count }
        return ReplicationBatch(events: events, through: through, lastPosition: end, bytes: bytes, epoch: Self.epoch)
    }
}
