import Foundation
import SampleCards
import Testing
@testable import ShareLog

@Suite struct CompactionTests {
    @Test func compactionRedactsTheLogKeepingIDsAndSequences() throws {
        let test = try TestStore()
        let share = try test.store.create(vCard: smallCard(), ttl: .seconds(60))
        let before = try test.store.events(after: 0)
        test.clock.advance(by: .seconds(60))
        try test.store.sweep()
        #expect(try test.store.stats().pendingRedactions == 1)
        #expect(try test.store.compact().redacted == 1)
        let after = try test.store.events(after: 0)
        #expect(after.map(\.position) == [1, 2])
        #expect(after[0].event.id == before[0].event.id)
        guard case .shareCreated(let created) = after[0].event.kind else { Issue.record("not a creation"); return }
        #expect(created.vCard == nil && created.recordName == share.recordName)
        #expect(try test.store.stats().pendingRedactions == 0)
        #expect(try test.store.compact().redacted == 0)
    }

    @Test func compactionLeavesLiveSharesAlone() throws {
        let test = try TestStore()
        let live = try test.store.create(vCard: smallCard(1))
        let ended = try test.store.create(vCard: smallCard(2))
        try test.store.revoke(ended.recordName)
        try test.store.compact()
        // ManualClock's start, and seven days (the default TTL) later.
        let start = Timestamp(milliseconds: 1_800_000_000_000)
        let weekLater = Timestamp(milliseconds: 1_800_604_800_000)
        #expect(try test.store.fetch(live.recordName) == .live(Share(
            recordName: live.recordName, vCard: smallCard(1), createdAt: start, expiresAt: weekLater)))
        // The whole log: only the revoked share's creation lost its card.
        #expect(try test.store.events(after: 0).map(\.event.kind) == [
            .shareCreated(ShareCreated(recordName: live.recordName, vCard: smallCard(1), createdAt: start, expiresAt: weekLater)),
            .shareCreated(ShareCreated(recordName: ended.recordName, vCard: nil, createdAt: start, expiresAt: weekLater)),
            .shareExpired(ShareExpired(recordName: ended.recordName, at: start, reason: .revoked)),
        ])
    }

    @Test(arguments: [nil, 60_000] as [Int?])
    func afterSweepAndCompactionNoByteOfAnExpiredCardRemainsInTheFiles(photoBytes: Int?) throws {
        let test = try TestStore(durable: true)
        let marker = "Zyxwvut-Expired-\(UUID().uuidString)"
        var card = SampleCard.make(index: 1, photoBytes: photoBytes)
        card.insert(contentsOf: Array("NOTE:\(marker)\r\n".utf8), at: card.count - "END:VCARD\r\n".utf8.count)
        let secret = try test.store.create(vCard: card, ttl: .seconds(60))
        // Neighbours that stay, so pages are shared and rewritten.
        for index in 2..<40 { _ = try test.store.create(vCard: smallCard(index), ttl: .seconds(86_400)) }
        #expect(try test.rawFiles().values.contains { $0.range(of: Data(marker.utf8)) != nil })
        test.clock.advance(by: .seconds(60))
        try test.store.sweep()
        try test.store.compact()
        #expect(try test.store.fetch(secret.recordName) == .expired(at: secret.expiresAt, reason: .ttl))
        for (name, bytes) in try test.rawFiles() {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(name) still holds the expired card")
        }
        // Later commits must not carry the card back from LMDB's recycled
        // page buffers into the file.
        for index in 40..<80 { _ = try test.store.create(vCard: smallCard(index)) }
        try test.store.sweep(at: test.clock.now().advanced(by: .seconds(86_400)))
        for (name, bytes) in try test.rawFiles() {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(name) holds the expired card again after later writes")
        }
        #expect(try test.store.verify().isConsistent)
    }
}
