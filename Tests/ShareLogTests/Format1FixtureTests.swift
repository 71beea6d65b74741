import Foundation
import Testing
import TestSupport
@testable import ShareLog

/// The committed format-1 store (Tests/Fixtures/format1) gives exactly the
/// answers it was made to give. Every expected value is written by hand from
/// make-store.sh and what it printed; the format-2 upgrade (issue 11) must
/// keep these answers.
@Suite struct Format1FixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// 2026-12-01T10:00:00Z and the minutes after it.
    static func at(_ minutes: Int64) -> Timestamp { Timestamp(milliseconds: 1_796_119_200_000 + minutes * 60_000) }
    static let week: Int64 = 7 * 24 * 60

    static func name(_ text: String) throws -> RecordName { try #require(RecordName(text)) }

    static func card(_ name: String) -> [UInt8] {
        Array("BEGIN:VCARD\r\nVERSION:3.0\r\nN:\(name);Fixture;;;\r\nFN:Fixture \(name)\r\nORG:Format One Ltd\r\nEND:VCARD\r\n".utf8)
    }

    /// A copy of the fixture in a temporary directory, so no test changes it.
    static func copy(into directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixture.appendingPathComponent("format1/store/data.mdb").path, toPath: path + "/data.mdb")
        return path
    }

    @Test func theFormat1StoreAnswersAsItWasMadeTo() throws {
        let directory = TemporaryDirectory()
        var options = ShareStore.Options()
        options.clock = FixedClock(Self.at(180))
        let store = try ShareStore.open(at: try Self.copy(into: directory), options: options)
        #expect(store.wasCreated == false)
        #expect(store.replicaID == ReplicaID("c3deaad6-055c-4817-96a5-9e97c5469dba"))
        #expect(store.epoch == Epoch("066b60e0-cbdf-4c09-95f2-d5cb1c0a943c"))

        let photoCard = try [UInt8](Data(contentsOf: Self.fixture.appendingPathComponent("card-with-photo.vcf")))
        let live = try Self.name("f119d597-a1a9-448f-8028-bcb3407e2f0e")
        let livePhoto = try Self.name("32cfd185-baa1-4be0-99b2-dd082e2f3338")
        #expect(try store.fetch(live) == .live(Share(
            recordName: live, vCard: Self.card("Live"), createdAt: Self.at(0), expiresAt: Self.at(Self.week))))
        #expect(try store.fetch(livePhoto) == .live(Share(
            recordName: livePhoto, vCard: photoCard, createdAt: Self.at(0), expiresAt: Self.at(Self.week))))
        #expect(try store.fetch(Self.name("a7e6b3c8-e982-45a1-a250-ca5c6caf4d17")) == .expired(at: Self.at(60), reason: .ttl))
        #expect(try store.fetch(Self.name("203ccede-d3ab-4a14-8e76-476baa778dd2")) == .expired(at: Self.at(30), reason: .revoked))
        #expect(try store.fetch(Self.name("b4cb9207-df77-4492-be0f-cbebeeab4d44")) == .expired(at: Self.at(152), reason: .ttl))
        #expect(try store.fetch(Self.name("a48d8e17-fe9f-48bd-80ad-d54acc47cc9d")) == .expired(at: Self.at(100), reason: .revoked))

        let stats = try store.stats()
        #expect([stats.events, stats.live, stats.expired, stats.due, stats.pendingRedactions] == [10, 2, 4, 0, 2] as [Int])
        // create ×4, revoke, sweep's expiry, create ×2, revoke, sweep's expiry;
        // compaction rewrote entries 3 and 4 in place, without their cards.
        let kinds = try store.events(after: 0).map { logged -> String in
            switch logged.event.kind {
            case .shareCreated(let created): created.vCard == nil ? "created, redacted" : "created"
            case .shareExpired(let expired): "expired (\(expired.reason))"
            case .unknown: "unknown"
            }
        }
        #expect(kinds == [
            "created", "created", "created, redacted", "created, redacted", "expired (revoked)", "expired (ttl)",
            "created", "created", "expired (revoked)", "expired (ttl)",
        ])
        #expect(try store.verify().isConsistent)
    }
}
