import Foundation
import ShareLog

/// Everything a store holds, as plain values laid out the way
/// docs/FORMAT.md (format 2) describes it: the log, the four derived
/// databases and the meta counters.
///
/// `StoreDecoder` reads one from a store's raw LMDB bytes and refuses any
/// byte the format does not account for; `ReferenceModel` computes one from
/// the events it was given. So two equal images mean the store holds, byte
/// for byte, what the model says it should.
struct StoreImage: Equatable {
    /// A `shares` value (format 2): the parts its flags say are present.
    struct Share: Equatable, CustomStringConvertible {
        var creation: Creation?
        var revocation: End?
        var ttlEnd: End?
        var arrivedRedacted = false

        var description: String {
            let created = creation.map { "created \($0.createdAt)...\($0.expiresAt) by \($0.event) at position \($0.position)" } ?? "no creation"
            let revoked = revocation.map { "revoked at \($0.at) by \($0.event)" } ?? "no revocation"
            let ended = ttlEnd.map { "TTL end at \($0.at) by \($0.event)" } ?? "no TTL end"
            return "\(created), \(revoked), \(ended)\(arrivedRedacted ? ", arrived redacted" : "")"
        }
    }

    /// The creation part of a `shares` value; times in milliseconds.
    struct Creation: Equatable {
        var createdAt: Int64
        var expiresAt: Int64
        var event: EventID
        /// The log position of that `shareCreated`.
        var position: UInt64
    }

    /// A revocation or TTL end part of a `shares` value.
    struct End: Equatable {
        var at: Int64
        var event: EventID
    }

    /// An `expiry` key: expiresAt as stored (negative times as 0), then the name.
    struct ExpiryKey: Hashable, CustomStringConvertible {
        var expiresAt: UInt64
        var name: RecordName

        var description: String { "\(expiresAt)/\(name)" }
    }

    /// An `expiry` value: the winning creation's log position and exact expiresAt.
    struct Pending: Equatable, CustomStringConvertible {
        var position: UInt64
        var expiresAt: Int64

        var description: String { "position \(position), expires \(expiresAt)" }
    }

    /// A peer's cursor, as FORMAT.md lays out a `cursors` value.
    struct Cursor: Equatable, CustomStringConvertible {
        var epoch: UUID
        var position: UInt64
        var lastSeen: Int64

        var description: String { "epoch \(epoch), position \(position), seen \(lastSeen)" }
    }

    var originSequence: UInt64 = 0
    var trimmedThrough: UInt64 = 0
    var liveCount: UInt64 = 0
    var expiredCount: UInt64 = 0
    /// Events by local sequence.
    var log: [UInt64: Event] = [:]
    var eventIndex: [EventID: UInt64] = [:]
    var shares: [RecordName: Share] = [:]
    var expiry: [ExpiryKey: Pending] = [:]
    var pendingRedactions: Set<UInt64> = []
    /// Cursors by peer replica id.
    var cursors: [UUID: Cursor] = [:]

    /// Where `self` (the store) and `expected` (the model) disagree, a few
    /// lines per database, for a failure message.
    func differences(from expected: StoreImage) -> [String] {
        var lines: [String] = []
        for (name, mine, theirs) in [
            ("origin-sequence", originSequence, expected.originSequence),
            ("trimmed-through", trimmedThrough, expected.trimmedThrough),
            ("live-count", liveCount, expected.liveCount),
            ("expired-count", expiredCount, expected.expiredCount),
        ] where mine != theirs {
            lines.append("meta \(name): store \(mine), model \(theirs)")
        }
        lines += Self.differences("log", log.mapValues(Self.describe), expected.log.mapValues(Self.describe))
        lines += Self.differences("eventIndex", eventIndex, expected.eventIndex)
        lines += Self.differences("shares", shares, expected.shares)
        lines += Self.differences("expiry", expiry, expected.expiry)
        lines += Self.differences("pendingRedactions", Self.present(pendingRedactions), Self.present(expected.pendingRedactions))
        lines += Self.differences("cursors", cursors, expected.cursors)
        return lines
    }

    private static func differences<Key: Hashable, Value: Equatable>(
        _ database: String, _ store: [Key: Value], _ model: [Key: Value]
    ) -> [String] {
        let keys = Set(store.keys).union(model.keys).filter { store[$0] != model[$0] }
        let lines = keys.map { key in
            "\(database)[\(key)]: store \(store[key].map { "\($0)" } ?? "absent"), model \(model[key].map { "\($0)" } ?? "absent")"
        }
        return Array(lines.sorted().prefix(6)) + (lines.count > 6 ? ["\(database): \(lines.count - 6) more"] : [])
    }

    private static func present<Key: Hashable>(_ keys: Set<Key>) -> [Key: String] {
        Dictionary(uniqueKeysWithValues: keys.map { ($0, "present") })
    }

    /// An event in one line, its card as a byte count.
    private static func describe(_ event: Event) -> String {
        switch event.kind {
        case .shareCreated(let created):
            let card = created.vCard.map { "card of \($0.count) bytes" } ?? "redacted"
            return "\(event.id) created \(created.recordName) \(created.createdAt.milliseconds)...\(created.expiresAt.milliseconds), \(card)"
        case .shareExpired(let expired):
            return "\(event.id) expired \(expired.recordName) at \(expired.at.milliseconds) (\(expired.reason))"
        case .unknown(let code, let flags, let payload):
            return "\(event.id) unknown kind \(code), flags \(flags), payload \(payload)"
        }
    }
}
