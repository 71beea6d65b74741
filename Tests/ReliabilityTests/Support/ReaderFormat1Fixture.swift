import Foundation
import TestSupport

/// The committed format-1 store (Tests/Fixtures/format1, made by the last
/// format-1 build) and what a reader of docs/FORMAT.md's format 1 must find
/// in it, written by hand from make-store.sh, the ids it printed (its
/// README) and the fixture's photo card: nothing here is decoded by ShareLog.
enum ReaderFormat1Fixture {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A copy of the fixture's data.mdb in `directory`, so that no reader
    /// leaves a lock file in the repository.
    static func copy(into directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("format1/store/data.mdb").path, toPath: path + "/data.mdb")
        return path
    }

    static let replica = "c3deaad6-055c-4817-96a5-9e97c5469dba"
    static let live = "f119d597-a1a9-448f-8028-bcb3407e2f0e"
    static let livePhoto = "32cfd185-baa1-4be0-99b2-dd082e2f3338"
    static let sweptPhoto = "a7e6b3c8-e982-45a1-a250-ca5c6caf4d17"
    static let revoked = "203ccede-d3ab-4a14-8e76-476baa778dd2"
    static let swept = "b4cb9207-df77-4492-be0f-cbebeeab4d44"
    static let revokedLate = "a48d8e17-fe9f-48bd-80ad-d54acc47cc9d"

    /// 2026-12-01T10:00:00Z plus `minutes`, in milliseconds.
    static func at(_ minutes: Int64) -> Int64 { 1_796_119_200_000 + minutes * 60_000 }
    static let week: Int64 = 7 * 24 * 60

    /// make-store.sh's `card NAME`.
    static func card(_ name: String) -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nN:\(name);Fixture;;;\r\nFN:Fixture \(name)\r\nORG:Format One Ltd\r\nEND:VCARD\r\n"
    }

    /// What the script's steps leave, by format 1's rules.
    static func expected() throws -> ReaderOutputFormat1 {
        let photo = String(decoding: try Data(contentsOf: fixtures.appendingPathComponent("card-with-photo.vcf")), as: UTF8.self)
        let r = replica
        let created = { (sequence: UInt64, name: String, createdAt: Int64, expiresAt: Int64, card: String?) in
            ReaderOutput.Event(
                sequence: sequence, version: 1, kind: 1, kindName: "shareCreated", flags: card == nil ? 1 : 0, origin: r,
                originSequence: sequence, recordName: name, createdAt: at(createdAt), expiresAt: at(expiresAt),
                redacted: card == nil, vCard: card)
        }
        let expired = { (sequence: UInt64, name: String, minutes: Int64, reason: String) in
            ReaderOutput.Event(
                sequence: sequence, version: 1, kind: 2, kindName: "shareExpired", flags: 0, origin: r,
                originSequence: sequence, recordName: name, at: at(minutes), reason: reason)
        }
        // Compaction at 11:31 redacted 3 (swept at 11:30) and 4 (revoked at 10:30).
        let events = [
            created(1, live, 0, week, card("Live")),
            created(2, livePhoto, 0, week, photo),
            created(3, sweptPhoto, 0, 60, nil),
            created(4, revoked, 0, week, nil),
            expired(5, revoked, 30, "revoked"),
            expired(6, sweptPhoto, 60, "ttl"),
            created(7, swept, 92, 152, card("Swept")),
            created(8, revokedLate, 92, 92 + week, card("RevokedLate")),
            expired(9, revokedLate, 100, "revoked"),
            expired(10, swept, 152, "ttl"),
        ]
        let share = { (name: String, sequence: UInt64, createdAt: Int64, expiresAt: Int64, end: (Int64, String, UInt64)?, card: String?) in
            ReaderOutputFormat1.Share(
                recordName: name, version: 1,
                creation: ReaderOutputFormat1.Creation(createdAt: at(createdAt), expiresAt: at(expiresAt), origin: r, originSequence: sequence),
                expiry: end.map { ReaderOutputFormat1.Expiry(at: at($0.0), reason: $0.1, origin: r, originSequence: $0.2) },
                vCard: card)
        }
        let shares = [
            share(live, 1, 0, week, nil, card("Live")),
            share(livePhoto, 2, 0, week, nil, photo),
            share(sweptPhoto, 3, 0, 60, (60, "ttl", 6), nil),
            share(revoked, 4, 0, week, (30, "revoked", 5), nil),
            share(swept, 7, 92, 152, (152, "ttl", 10), nil),
            share(revokedLate, 8, 92, 92 + week, (100, "revoked", 9), nil),
        ]
        let creates = [(live, 1, true), (livePhoto, 2, true), (sweptPhoto, 3, false), (revoked, 4, false), (swept, 7, true), (revokedLate, 8, true)]
            .map { ReaderOutputFormat1.RecordCreate(recordName: $0.0, sequence: $0.1, holdsVCard: $0.2) }
        return ReaderOutputFormat1(
            databases: ["meta": 6, "log": 10, "eventIndex": 10, "shares": 6, "expiry": 2, "recordCreates": 6, "pendingRedactions": 2],
            meta: ReaderOutput.Meta(
                schema: 1, replica: r, epoch: "066b60e0-cbdf-4c09-95f2-d5cb1c0a943c", originSequence: 10, liveCount: 2, expiredCount: 4, dataFile: nil, trimmedThrough: nil),
            events: events,
            eventIndex: (1...10).map { ReaderOutput.IndexEntry(origin: r, originSequence: UInt64($0), sequence: UInt64($0)) },
            shares: shares.sorted { $0.recordName < $1.recordName },
            expiry: [livePhoto, live].map { ReaderOutputFormat1.ExpiryEntry(expiresAt: UInt64(at(week)), recordName: $0) },
            recordCreates: creates.sorted { $0.recordName < $1.recordName },
            // Swept and revoked after the compaction, still holding their cards.
            pendingRedactions: [7, 8])
    }
}
