import Foundation
import LMDB
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// The store's tokens and idempotency entries (issue 32): what a user of
/// the library sees after each call, and that a refused write leaves the
/// store's bytes as they were.
@Suite(.hangDeadline) struct TokenStoreTests {
    /// 2026-12-01T10:00:00Z and the minutes after it.
    static func at(_ minutes: Int64) -> Timestamp { Timestamp(milliseconds: 1_796_119_200_000 + minutes * 60_000) }

    static func token(_ name: String, id: UInt8, scopes: TokenScopes = .all, expiresAt: Timestamp? = nil) -> StoredToken {
        StoredToken(
            id: TokenID(bytes: [UInt8](repeating: id, count: 8))!, name: name, scopes: scopes, createdAt: at(0), expiresAt: expiresAt,
            secretHash: [UInt8](repeating: id, count: 32))
    }

    static func newStore(in directory: TemporaryDirectory, named name: String = "store") throws -> ShareStore {
        try ShareStore.open(at: directory.appending(name), creatingIfMissing: true)
    }

    static func dataFile(_ store: ShareStore) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: store.path + "/data.mdb"))
    }

    @Test func addedTokensAreListedByNameAndFoundById() throws {
        let directory = TemporaryDirectory()
        let store = try Self.newStore(in: directory)
        #expect(try store.tokens() == [])
        let zebra = Self.token("zebra", id: 1, scopes: .read)
        let alpha = Self.token("alpha", id: 2, expiresAt: Self.at(60))
        try store.addToken(zebra)
        try store.addToken(alpha)
        #expect(try store.tokens().map(\.name) == ["alpha", "zebra"])
        #expect(try store.token(id: zebra.id) == zebra)
        #expect(try store.token(id: TokenID(bytes: [UInt8](repeating: 9, count: 8))!) == nil)
        #expect(try store.verify().isConsistent)
    }

    @Test func aTakenNameIsRefusedAndNothingIsWritten() throws {
        let directory = TemporaryDirectory()
        let store = try Self.newStore(in: directory)
        try store.addToken(Self.token("ios-app", id: 1))
        _ = try store.revokeToken(named: "ios-app", at: Self.at(5))
        let before = try Self.dataFile(store)
        // Revoked tokens keep their names.
        #expect(throws: ShareLogError.tokenNameTaken("ios-app")) { try store.addToken(Self.token("ios-app", id: 2)) }
        #expect(try Self.dataFile(store) == before)
        #expect(try store.tokens().count == 1)
    }

    @Test(arguments: [
        (TokenStoreTests.token("bad name", id: 1), "the name 'bad name' is not 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'"),
        (TokenStoreTests.token("none", id: 1, scopes: []), "its scopes must be some of upload, revoke and read"),
        (TokenStoreTests.token("bits", id: 1, scopes: TokenScopes(rawValue: 0x09)), "its scopes must be some of upload, revoke and read"),
        (TokenStoreTests.token("old", id: 1, expiresAt: TokenStoreTests.at(0)),
         "it would expire at 2026-12-01T10:00:00.000Z, not after its creation at 2026-12-01T10:00:00.000Z"),
        (StoredToken(id: TokenID(bytes: [1, 1, 1, 1, 1, 1, 1, 1])!, name: "short", scopes: .all, createdAt: TokenStoreTests.at(0), expiresAt: nil, secretHash: [1]),
         "its secret's hash is 1 bytes, not SHA-256's 32"),
    ])
    func anInvalidTokenIsRefusedWithItsReason(_ token: StoredToken, reason: String) throws {
        let directory = TemporaryDirectory()
        let store = try Self.newStore(in: directory)
        let before = try Self.dataFile(store)
        #expect(throws: ShareLogError.invalidToken(reason)) { try store.addToken(token) }
        #expect(try Self.dataFile(store) == before)
    }

    @Test func revokingKeepsTheFirstTimeAndSaysSo() throws {
        let directory = TemporaryDirectory()
        let store = try Self.newStore(in: directory)
        try store.addToken(Self.token("ios-app", id: 1))
        let first = try store.revokeToken(named: "ios-app", at: Self.at(10))
        #expect(first.wasAlreadyRevoked == false)
        #expect(first.token.revokedAt == Self.at(10))
        let before = try Self.dataFile(store)
        let second = try store.revokeToken(named: "ios-app", at: Self.at(20))
        #expect(second.wasAlreadyRevoked == true)
        #expect(second.token.revokedAt == Self.at(10))
        #expect(try Self.dataFile(store) == before)
        #expect(try store.tokens().first?.revokedAt == Self.at(10))
    }

    @Test func revokingAnUnknownNameThrowsAndWritesNothing() throws {
        let directory = TemporaryDirectory()
        let store = try Self.newStore(in: directory)
        try store.addToken(Self.token("ios-app", id: 1))
        let before = try Self.dataFile(store)
        #expect(throws: ShareLogError.tokenNotFound("android")) { try store.revokeToken(named: "android", at: Self.at(1)) }
        #expect(try Self.dataFile(store) == before)
    }

    /// Another instance, opened before the revoke (as a gateway is), sees it
    /// at its next lookup.
    @Test func aRevokeIsSeenByAnInstanceOpenedBefore() throws {
        let directory = TemporaryDirectory()
        let writer = try Self.newStore(in: directory)
        let token = Self.token("ios-app", id: 1)
        try writer.addToken(token)
        let reader = try ShareStore.open(at: writer.path)
        #expect(try reader.token(id: token.id)?.revokedAt == nil)
        _ = try writer.revokeToken(named: "ios-app", at: Self.at(3))
        #expect(try reader.token(id: token.id)?.revokedAt == Self.at(3))
    }

    @Test func lastUseOnlyMovesForward() throws {
        let directory = TemporaryDirectory()
        let store = try Self.newStore(in: directory)
        let token = Self.token("ios-app", id: 1)
        try store.addToken(token)
        #expect(try store.markTokenUsed(token.id, at: Self.at(30))?.lastUsedAt == Self.at(30))
        #expect(try store.markTokenUsed(token.id, at: Self.at(20))?.lastUsedAt == Self.at(30))
        #expect(try store.token(id: token.id)?.lastUsedAt == Self.at(30))
        #expect(try store.markTokenUsed(TokenID(bytes: [UInt8](repeating: 7, count: 8))!, at: Self.at(40)) == nil)
    }

    /// Entries are written as the upload transaction will (raw, here: that
    /// transaction comes with the write routes), then looked up and expired.
    @Test func idempotencyEntriesAreFoundAndTheOldOnesRemovedInOneGo() throws {
        let directory = TemporaryDirectory()
        let store = try Self.newStore(in: directory)
        let token = try #require(TokenID(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        let entries = (0..<3).map { index in
            IdempotencyEntry(
                token: token, keyHash: [UInt8](repeating: UInt8(index), count: 32), fingerprint: [UInt8](repeating: 0xF0, count: 32),
                firstSeen: Self.at(Int64(index) * 60), recordName: RecordName.random(), creation: EventID(origin: store.replicaID, counter: UInt64(index + 1)))
        }
        let database = store.schema.idempotency
        try store.write { txn in
            for entry in entries { try txn.put(entry.encodedValue(), forKey: entry.key, in: database) }
        }
        #expect(try store.idempotencyEntry(token: token, keyHash: entries[1].keyHash) == entries[1])
        #expect(try store.idempotencyEntry(token: token, keyHash: [UInt8](repeating: 9, count: 32)) == nil)
        #expect(try store.idempotencyEntries() == entries)
        #expect(try store.verify().isConsistent)
        // Older than 10:00 + 90 min: the first two (10:00, 11:00).
        #expect(try store.removeIdempotencyEntries(firstSeenBefore: Self.at(90)) == 2)
        #expect(try store.idempotencyEntries() == [entries[2]])
    }

    @Test func verifyReportsADamagedTokenAndADuplicateName() throws {
        let directory = TemporaryDirectory()
        let store = try Self.newStore(in: directory)
        try store.addToken(Self.token("ios-app", id: 1))
        let twin = Self.token("ios-app", id: 2)
        let database = store.schema.tokens
        try store.write { txn in
            try txn.put(twin.encoded(), forKey: twin.id.bytes, in: database)
            try txn.put([2], forKey: [3, 3, 3, 3, 3, 3, 3, 3] as [UInt8], in: database)
        }
        let report = try store.verify()
        #expect(report.mismatches == [
            Mismatch(database: "tokens", key: "0202020202020202", problem: "a second token named 'ios-app'"),
            Mismatch(database: "tokens", key: "0303030303030303", problem: "not a token of value version 1"),
        ])
    }
}
