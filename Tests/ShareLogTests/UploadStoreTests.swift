import Foundation
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// `ShareStore.create(vCard:ttl:claim:)`: one share per idempotency key,
/// whatever number of attempts, as a user of the write API sees it
/// (docs/HTTP.md "Exactly once").
@Suite(.hangDeadline) struct UploadStoreTests {
    static let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Upload Person\r\nEND:VCARD\r\n".utf8)
    static let token = StoredToken(
        id: TokenID(bytes: [UInt8](repeating: 7, count: 8))!, name: "ios-app", scopes: .all,
        createdAt: Timestamp(milliseconds: 1_700_000_000_000), expiresAt: nil, secretHash: [UInt8](repeating: 7, count: 32))
    static let name = RecordName(uuid: UUID(uuidString: "6a9f0b4e-3c1d-4e2f-8a7b-9c0d1e2f3a4b")!)

    static func claim(fingerprint: UInt8 = 1, name: RecordName = name) -> UploadClaim {
        UploadClaim(token: token.id, keyHash: [UInt8](repeating: 0xAB, count: 32), fingerprint: [UInt8](repeating: fingerprint, count: 32), recordName: name)
    }

    static func prepared() throws -> TestStore {
        let test = try TestStore()
        try test.store.addToken(token)
        return test
    }

    @Test func theFirstAttemptMakesTheShareUnderItsNameAndRecordsTheKey() throws {
        let test = try Self.prepared()
        let start = test.clock.now()
        let outcome = try test.store.create(vCard: Self.card, ttl: .seconds(3600), claim: Self.claim())
        guard case .created(let share) = outcome else { Issue.record("expected a new share, got \(outcome)"); return }
        #expect(share.recordName == Self.name)
        #expect(share.createdAt == start)
        #expect(share.expiresAt.milliseconds == start.milliseconds + 3_600_000)
        #expect(share.link == "https://cards.example.com/appclip?id=6a9f0b4e-3c1d-4e2f-8a7b-9c0d1e2f3a4b")
        guard case .live(let fetched) = try test.store.fetch(Self.name) else { Issue.record("the share is not live"); return }
        #expect(fetched.vCard == Self.card)
        let entry = try test.store.idempotencyEntry(token: Self.token.id, keyHash: [UInt8](repeating: 0xAB, count: 32))
        #expect(entry?.recordName == Self.name)
        #expect(entry?.firstSeen == start)
        #expect(entry?.fingerprint == [UInt8](repeating: 1, count: 32))
        #expect(try test.store.token(id: Self.token.id)?.lastUsedAt == start, "the upload marks its token used")
        #expect(try test.store.verify().isConsistent)
    }

    @Test func aRetryWithTheSameRequestGetsTheFirstAnswerAndWritesNothing() throws {
        let test = try Self.prepared()
        guard case .created(let first) = try test.store.create(vCard: Self.card, ttl: .seconds(3600), claim: Self.claim()) else {
            Issue.record("the first attempt made no share"); return
        }
        test.clock.advance(by: .seconds(90))
        let before = try test.rawFiles()
        #expect(try test.store.create(vCard: Self.card, ttl: .seconds(3600), claim: Self.claim()) == .replayed(first))
        #expect(try test.rawFiles() == before, "a replay writes nothing")
        // Still the first answer once the share has ended.
        try test.store.revoke(Self.name)
        #expect(try test.store.create(vCard: Self.card, ttl: .seconds(3600), claim: Self.claim()) == .replayed(first))
        #expect(try test.store.stats().events == 2, "one creation and the revocation")
    }

    @Test func theSameKeyWithAnotherRequestIsRefusedAndWritesNothing() throws {
        let test = try Self.prepared()
        let start = test.clock.now()
        _ = try test.store.create(vCard: Self.card, ttl: .seconds(3600), claim: Self.claim())
        test.clock.advance(by: .seconds(30))
        let before = try test.rawFiles()
        #expect(try test.store.create(vCard: Self.card, ttl: .seconds(60), claim: Self.claim(fingerprint: 2)) == .keyReused(firstSeen: start))
        #expect(try test.rawFiles() == before)
    }

    @Test func aShareOfThatNameMadeElsewhereIsTheAnswerAndTheKeyIsRecorded() throws {
        let test = try Self.prepared()
        // The same upload, made first on another replica and synced here.
        let made = Timestamp(milliseconds: test.clock.now().milliseconds - 5000)
        let elsewhere = Event(
            id: EventID(origin: ReplicaID(uuid: UUID()), counter: 1),
            kind: .shareCreated(ShareCreated(recordName: Self.name, vCard: Self.card, createdAt: made, expiresAt: made.advanced(by: .seconds(3600)))))
        _ = try test.store.apply([elsewhere])
        let outcome = try test.store.create(vCard: Self.card, ttl: .seconds(3600), claim: Self.claim())
        guard case .replayed(let share) = outcome else { Issue.record("expected the share made elsewhere, got \(outcome)"); return }
        #expect(share.createdAt == made)
        #expect(share.expiresAt.milliseconds == made.milliseconds + 3_600_000)
        #expect(try test.store.stats().events == 1, "no second creation")
        #expect(try test.store.idempotencyEntry(token: Self.token.id, keyHash: [UInt8](repeating: 0xAB, count: 32))?.creation == elsewhere.id)
    }

    @Test func aBadCardIsRefusedBeforeAnythingIsWritten() throws {
        let test = try Self.prepared()
        let before = try test.rawFiles()
        #expect(throws: ShareLogError.invalidVCard(.missingBegin)) {
            try test.store.create(vCard: Array("FN:No Card\r\n".utf8), ttl: .seconds(3600), claim: Self.claim())
        }
        #expect(throws: ShareLogError.invalidTTL(seconds: 10)) { try test.store.create(vCard: Self.card, ttl: .seconds(10), claim: Self.claim()) }
        #expect(try test.rawFiles() == before)
    }
}

extension UploadStoreTests {
    @Test func aTrimmingPassForgetsKeysOnlyAfterADay() throws {
        let test = try Self.prepared()
        let start = test.clock.now()
        _ = try test.store.create(vCard: Self.card, ttl: .seconds(7 * 24 * 3600), claim: Self.claim())
        let keyHash = [UInt8](repeating: 0xAB, count: 32)
        let early = try test.store.maintain(at: Timestamp(milliseconds: start.milliseconds + 23 * 3_600_000), trimming: true)
        #expect(early.forgottenKeys == 0)
        #expect(try test.store.idempotencyEntry(token: Self.token.id, keyHash: keyHash) != nil, "kept for a day")
        let untrimmed = try test.store.maintain(at: Timestamp(milliseconds: start.milliseconds + 25 * 3_600_000))
        #expect(untrimmed.forgottenKeys == nil, "only a trimming pass forgets keys")
        let late = try test.store.maintain(at: Timestamp(milliseconds: start.milliseconds + 25 * 3_600_000), trimming: true)
        #expect(late.forgottenKeys == 1)
        #expect(try test.store.idempotencyEntry(token: Self.token.id, keyHash: keyHash) == nil)
        guard case .live = try test.store.fetch(Self.name, at: Timestamp(milliseconds: start.milliseconds + 25 * 3_600_000)) else {
            Issue.record("the share outlives its key"); return
        }
    }
}
