import Foundation
import SampleCards
import ShareLog
import TestSupport

/// A format-1 store as the last format-1 build would have made it, planned
/// from a seed: the shares, the order of their events in the log, and what
/// each must answer at `now`. `Format1StoreWriter` writes it; the upgrade
/// tests check the upgraded store against it. No value here comes from the
/// code under test.
///
/// The history, with one replica making every event (so origin counter =
/// log position), share i created at `start` + i seconds:
///
/// | what | when | shares |
/// |---|---|---|
/// | creations, in share order | `start` + i s | all |
/// | revocations | after the creations | revoked, compacted |
/// | sweep 1, in `expiry` key order | `start` + 1 day | swept, compacted (TTL 1 h) |
/// | compaction | 1 min later | everything ended so far: the compacted ones |
/// | revocations | after the compaction | revoked, not compacted |
/// | sweep 2, in `expiry` key order | `start` + 2 days | swept, not compacted (TTL 36 h) |
/// | `now` | `start` + 3 days | due (TTL 60 h) and live (TTL 7 days) stay pending |
///
/// Every revocation comes before its share's `expiresAt` (TTL 7 days), so
/// format 1 and format 2 give the same answers (docs/FORMAT.md names the one
/// case where they differ). Every 20th card carries a 30,000-byte photo,
/// about 40 KB of base64, on LMDB overflow pages.
public struct Format1Store: Sendable {
    /// A `log` entry, by the index of its share in `shares`.
    public enum Entry: Sendable, Equatable {
        case created(Int)
        case ended(Int)
    }

    /// 2030-01-01T00:00:00Z.
    public static let start: Int64 = 1_893_456_000_000
    static let second: Int64 = 1000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 24 * hour
    /// The most shares the timeline above fits: creations and revocations
    /// take a second each and must end before the first sweep.
    public static let maximumShares = 40_000

    public let replica: ReplicaID
    public let epoch: Epoch
    public let shares: [Format1Share]
    /// Every log entry, in position order (position = index + 1).
    public let log: [Entry]
    /// When the answers hold: 3 days after `start`.
    public let now: Int64

    /// Plans `shareCount` shares from `seed`: about a quarter live, 15 % due,
    /// and 15 % each swept or revoked, with or without compaction.
    ///
    /// - Precondition: 1 ≤ `shareCount` ≤ `maximumShares`.
    public init(seed: UInt64, shareCount: Int) {
        precondition((1...Self.maximumShares).contains(shareCount), "a format-1 store plan holds 1 to \(Self.maximumShares) shares")
        var random = SeededGenerator(seed: seed)
        replica = ReplicaID(uuid: Self.uuid(&random))
        epoch = Epoch(uuid: Self.uuid(&random))
        let count = Int64(shareCount)
        let revokeFirst = Self.start + count * Self.second
        let sweep1 = Self.start + Self.day
        let revokeLater = sweep1 + 2 * 60 * Self.second
        var early = 0, late = 0
        var planned: [Format1Share] = []
        for index in 0..<shareCount {
            let createdAt = Self.start + Int64(index) * Self.second
            let roll = Int.random(in: 0..<100, using: &random)
            let (fate, ttl, compacted): (Format1Share.Fate, Int64, Bool)
            switch roll {
            case 0..<25: (fate, ttl, compacted) = (.live, 7 * Self.day, false)
            case 25..<40: (fate, ttl, compacted) = (.due, 60 * Self.hour, false)
            case 40..<55: (fate, ttl, compacted) = (.swept, Self.hour, true)
            case 55..<70: (fate, ttl, compacted) = (.swept, 36 * Self.hour, false)
            case 70..<85:
                (fate, ttl, compacted) = (.revoked(at: revokeFirst + Int64(early) * Self.second), 7 * Self.day, true)
                early += 1
            default:
                (fate, ttl, compacted) = (.revoked(at: revokeLater + Int64(late) * Self.second), 7 * Self.day, false)
                late += 1
            }
            let card = SampleCard.make(index: index, photoBytes: index % 20 == 0 ? 30_000 : nil)
            planned.append(Format1Share(
                name: RecordName(uuid: Self.uuid(&random)), card: card, createdAt: createdAt,
                expiresAt: createdAt + ttl, fate: fate, compacted: compacted))
        }
        // A sweep walks `expiry` in key order: expiresAt, then the name's bytes.
        func swept(compacted: Bool) -> [Entry] {
            planned.indices.filter { planned[$0].fate == .swept && planned[$0].compacted == compacted }
                .sorted { (planned[$0].expiresAt, planned[$0].name) < (planned[$1].expiresAt, planned[$1].name) }
                .map(Entry.ended)
        }
        func revoked(compacted: Bool) -> [Entry] {
            planned.indices.filter { planned[$0].revokedAt != nil && planned[$0].compacted == compacted }.map(Entry.ended)
        }
        let entries = planned.indices.map(Entry.created)
            + revoked(compacted: true) + swept(compacted: true)
            + revoked(compacted: false) + swept(compacted: false)
        for (offset, entry) in entries.enumerated() {
            switch entry {
            case .created(let index): planned[index].creationPosition = UInt64(offset + 1)
            case .ended(let index): planned[index].endPosition = UInt64(offset + 1)
            }
        }
        shares = planned
        log = entries
        now = Self.start + 3 * Self.day
    }

    /// What `stats()` must count at `now` once the store is format 2.
    public var expectedStats: (events: Int, live: Int, expired: Int, due: Int, pendingRedactions: Int) {
        let ended = shares.filter(\.ended)
        return (
            log.count, shares.count - ended.count, ended.count, shares.filter { $0.fate == .due }.count,
            ended.filter { !$0.compacted }.count)
    }

    /// How many shares have each fate, for a report.
    public var summary: String {
        let live = shares.filter { $0.fate == .live }.count
        let due = shares.filter { $0.fate == .due }.count
        let swept = shares.filter { $0.fate == .swept }.count
        let revoked = shares.filter { $0.revokedAt != nil }.count
        let compacted = shares.filter(\.compacted).count
        let photos = shares.filter { $0.card.count > 30_000 }.count
        return "\(shares.count) shares (\(live) live, \(due) due, \(swept) swept, \(revoked) revoked, "
            + "\(compacted) of the ended ones compacted, \(photos) with a photo), \(log.count) log entries"
    }

    private static func uuid(_ random: inout SeededGenerator) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
