import Foundation
import LMDB
import SampleCards
import Testing
@testable import ShareLog
import TestTraits
import SharePrimitives

/// A log value damaged on disk (planted here through raw LMDB) is reported,
/// with its sequence number, by `verify`, by `events(after:)`, by compaction
/// and by `sharelog verify`; nothing traps, and the entries around it and the
/// projections still read.
@Suite(.hangDeadline) struct CorruptEventTests {
    /// Ways a stored event can be damaged, each with the reason it must give
    /// (written out by hand from `EventDecodingError`'s documented messages).
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case flippedByte, truncated, emptied, newerVersion, unknownReason

        var testDescription: String { rawValue }

        func apply(to event: [UInt8]) -> (bytes: [UInt8], reason: String) {
            var bytes = event
            switch self {
            case .flippedByte:
                bytes[40] ^= 0xFF
                return (bytes, "event checksum does not match its bytes")
            case .truncated:
                // docs/FORMAT.md: an event is 35 bytes around its payload.
                let declared = event.count - 35
                return (Array(bytes.dropLast(7)), "event declares a \(declared)-byte payload but carries \(declared - 7) bytes")
            case .emptied:
                return ([], "event of 0 bytes is shorter than the 35-byte minimum")
            case .newerVersion:
                bytes[0] = 2
                return (resealed(bytes), "event format 2 is newer than this build reads (1); upgrade ShareLog")
            case .unknownReason:
                // A shareExpired whose reason byte is 9, with a valid checksum.
                bytes[bytes.count - 5] = 9
                return (resealed(bytes), "malformed event payload: unknown expiry reason 9")
            }
        }

        /// `bytes` with the checksum recomputed, so only the damage is wrong.
        func resealed(_ bytes: [UInt8]) -> [UInt8] {
            var sealed = Array(bytes.dropLast(4))
            let checksum = sealed.withUnsafeBytes { CRC32.of($0) }
            withUnsafeBytes(of: checksum.bigEndian) { sealed.append(contentsOf: $0) }
            return sealed
        }
    }

    /// Six shares; the fourth revoked (so sequence 7 is a shareExpired).
    func store() throws -> (ReliabilityStore, [RecordName]) {
        let fixture = try ReliabilityStore()
        let names = try (0..<6).map { try fixture.store.create(vCard: SampleCard.make(index: $0)).recordName }
        try fixture.store.revoke(names[3])
        return (fixture, names)
    }

    @Test(arguments: Damage.allCases)
    func aDamagedEventIsReportedWithItsSequence(_ damage: Damage) throws {
        let (fixture, names) = try store()
        let sequence: UInt64 = damage == .unknownReason ? 7 : 4
        let (bytes, reason) = damage.apply(to: try fixture.rawEvent(at: sequence))
        try fixture.plant(bytes, atSequence: sequence)
        let store = fixture.store

        let report = try store.verify()
        #expect(report.isConsistent == false)
        #expect(report.corruptEvents == [CorruptEvent(position: sequence, reason: reason)])
        #expect(report.positionGaps == [])

        let error = #expect(throws: ShareLogError.self) { try store.events(after: 0) }
        guard case .corruptEvent(sequence, .undecodable(let decoding))? = error else {
            Issue.record("expected corruptEvent(\(sequence), undecodable), got \(String(describing: error))")
            return
        }
        #expect(decoding.description == reason)
        #expect(error?.description == "log entry \(sequence) is corrupt (\(reason)); run 'sharelog verify' and restore from a replica")
        #expect(try store.events(after: 0, limit: Int(sequence) - 1).map(\.position) == Array(1..<sequence))
        #expect(try store.events(after: sequence).map(\.position) == Array(sequence + 1..<8))
        // The projections were not touched: every share still reads, as it
        // was created at the clock's start for the default seven days, and
        // the fourth is still revoked at that start.
        #expect(try store.share(names[0]) == Share(
            recordName: names[0], vCard: SampleCard.make(index: 0),
            createdAt: Timestamp(milliseconds: 1_893_456_000_000), expiresAt: Timestamp(milliseconds: 1_894_060_800_000)))
        #expect(try store.fetch(names[3]) == .expired(at: Timestamp(milliseconds: 1_893_456_000_000), reason: .revoked))
    }

    /// A fetch reads the card out of the share's creation entry: a damaged
    /// entry is an error naming its sequence, never a card or a trap, and
    /// the other shares still read.
    @Test(arguments: [Damage.flippedByte, .truncated, .emptied, .newerVersion])
    func fetchingAShareWhoseCreationIsDamagedReportsItsSequence(_ damage: Damage) throws {
        let (fixture, names) = try store()
        let (bytes, reason) = damage.apply(to: try fixture.rawEvent(at: 3))
        try fixture.plant(bytes, atSequence: 3)
        let error = #expect(throws: ShareLogError.self) { try fixture.store.fetch(names[2]) }
        guard case .corruptEvent(3, .undecodable(let decoding))? = error else {
            Issue.record("expected corruptEvent(3, undecodable), got \(String(describing: error))")
            return
        }
        #expect(decoding.description == reason)
        #expect(try fixture.store.share(names[1]).vCard == SampleCard.make(index: 1))
    }

    /// A share state names its creation's position; an entry there that is
    /// not a creation (here the revocation, sequence 7, copied whole) is
    /// reported as such.
    @Test func fetchingAShareWhoseCreationIsAnotherEventReportsIt() throws {
        let (fixture, names) = try store()
        try fixture.plant(try fixture.rawEvent(at: 7), atSequence: 3)
        let error = #expect(throws: ShareLogError.self) { try fixture.store.fetch(names[2]) }
        #expect(error == .corruptEvent(position: 3, reason: .notACreation))
    }

    @Test func compactingADamagedCreationReportsItsSequence() throws {
        let (fixture, _) = try store()
        // Sequence 4 holds the revoked share's creation, queued for redaction.
        let (bytes, _) = Damage.flippedByte.apply(to: try fixture.rawEvent(at: 4))
        try fixture.plant(bytes, atSequence: 4)
        let error = #expect(throws: ShareLogError.self) { try fixture.store.compact() }
        #expect(error == .corruptEvent(position: 4, reason: .undecodable(.checksumMismatch)))
    }

    @Test func sharelogVerifyExitsWithTheSequence() throws {
        let (fixture, names) = try store()
        let (bytes, reason) = Damage.truncated.apply(to: try fixture.rawEvent(at: 2))
        try fixture.plant(bytes, atSequence: 2)
        let result = try ExternalCommand.run(ExternalCommand.built("sharelog"), ["--store", fixture.path, "verify"])
        #expect(result.status == 1)
        // Without entry 2 the log no longer implies the second share: its
        // entries in every derived database (keys as docs/FORMAT.md lays them
        // out, expiresAt 2030-01-08T00:00Z = 0x000001b8fed23800) are extra,
        // and one share fewer is live.
        let share = names[1].description.replacingOccurrences(of: "-", with: "")
        let replica = fixture.store.replicaID.description.replacingOccurrences(of: "-", with: "")
        #expect(result.output == """
            log entry 2: \(reason)
            eventIndex[\(replica)0000000000000002]: stored but not implied by the log
            shares[\(share)]: stored but not implied by the log
            expiry[000001b8fed23800\(share)]: stored but not implied by the log
            meta[live-count]: stored 5, log implies 4
            MISMATCH: the projections differ from the log

            """)
    }
}
