import Foundation
import Testing
import TestSupport
import ShareLog
import TestTraits

/// Tests/Readers/read_store.py reads format 3's `tokens` and `idempotency`
/// as docs/FORMAT.md lays them out, and refuses each entry "What a reader
/// must refuse" names. Entries are put into an `mdb_copy` of a store by
/// Python's lmdb binding, as bytes written here from the page.
@Suite(.hangDeadline) struct IndependentReaderTokenTests {
    /// 2026-12-01T10:00:00Z.
    static let createdAt: Int64 = 1_796_119_200_000

    /// A store holding one token, "ios-app" (upload and read, never
    /// expiring, secret hash 32 × 0xab), made through ShareStore.
    static func store(in directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("store")
        let store = try ShareStore.open(at: path, creatingIfMissing: true)
        try store.addToken(StoredToken(
            id: TokenID(bytes: FormatBytes.hex("0102030405060708"))!, name: "ios-app", scopes: [.upload, .read],
            createdAt: Timestamp(milliseconds: createdAt), expiresAt: nil, secretHash: [UInt8](repeating: 0xAB, count: 32)))
        store.close()
        return path
    }

    /// The value FORMAT.md's "Tokens" gives for `name` with these fields.
    static func token(version: UInt8 = 1, scopes: UInt8 = 0x05, revokedAt: Int64 = 0, name: String = "ios-app") -> [UInt8] {
        [version, scopes] + FormatBytes.bigEndian(createdAt) + FormatBytes.bigEndian(Int64.max) + FormatBytes.bigEndian(revokedAt)
            + FormatBytes.bigEndian(Int64(0)) + [UInt8](repeating: 0xCD, count: 32) + [UInt8(name.utf8.count)] + Array(name.utf8)
    }

    static let idempotencyKey = FormatBytes.hex("0102030405060708") + [UInt8](repeating: 0x11, count: 32)
    /// "Idempotency keys": version, fingerprint, firstSeen, record name, origin, counter.
    static let idempotencyValue = [1] + [UInt8](repeating: 0x22, count: 32) + FormatBytes.bigEndian(createdAt)
        + FormatBytes.identifier("f119d597-a1a9-448f-8028-bcb3407e2f0e") + FormatBytes.identifier("c3deaad6-055c-4817-96a5-9e97c5469dba")
        + FormatBytes.bigEndian(UInt64(42))

    @Test func pythonReadsTokensAndIdempotencyEntriesFieldByField() throws {
        let directory = TemporaryDirectory()
        let copy = try DamagedCopy(of: try Self.store(in: directory))
        try copy.put(Self.token(scopes: 0x02, revokedAt: Self.createdAt + 60_000, name: "a.revoker"), forKey: [9, 9, 9, 9, 9, 9, 9, 9], in: "tokens")
        try copy.put(Self.idempotencyValue, forKey: Self.idempotencyKey, in: "idempotency")
        let result = try PythonReader.run(copy.path)
        #expect(result.status == 0, "\(result.error)")
        let read = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect((read["meta"] as? [String: Any])?["schema"] as? Int == 3)
        #expect((read["databases"] as? [String: Int])?["tokens"] == 2)
        let tokens = try #require(read["tokens"] as? [[String: Any]])
        #expect(tokens.map { $0["id"] as? String } == ["0102030405060708", "0909090909090909"])
        #expect(tokens.map { $0["name"] as? String } == ["ios-app", "a.revoker"])
        #expect(tokens.map { $0["scopes"] as? [String] } == [["upload", "read"], ["revoke"]])
        #expect(tokens[0]["expiresAt"] is NSNull && tokens[0]["revokedAt"] is NSNull && tokens[0]["lastUsedAt"] is NSNull)
        #expect(tokens[0]["createdAt"] as? Int64 == Self.createdAt)
        #expect(tokens[0]["secretHash"] as? String == String(repeating: "ab", count: 32))
        #expect(tokens[1]["revokedAt"] as? Int64 == Self.createdAt + 60_000)
        let entries = try #require(read["idempotency"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["recordName"] as? String == "f119d597-a1a9-448f-8028-bcb3407e2f0e")
        #expect(entries.first?["origin"] as? String == "c3deaad6-055c-4817-96a5-9e97c5469dba")
        #expect(entries.first?["originSequence"] as? Int == 42)
        #expect(entries.first?["firstSeen"] as? Int64 == Self.createdAt)
        #expect(entries.first?["keyHash"] as? String == String(repeating: "11", count: 32))
    }

    @Test(arguments: [
        ("tokens", [9, 9, 9, 9, 9, 9, 9, 9], token(version: 2, name: "b"), "tokens 0909090909090909: token value version 2 is not one this reader knows (1)"),
        ("tokens", [9, 9, 9, 9, 9, 9, 9, 9], token(scopes: 0x0D, name: "b"), "tokens 0909090909090909: token sets scope bits 0x08 that format 3 does not define"),
        ("tokens", [9, 9, 9, 9, 9, 9, 9, 9], token(name: "b") + [0x62], "tokens 0909090909090909: token with a 1-byte name is 69 bytes, not 68"),
        ("tokens", [9, 9, 9, 9, 9, 9, 9, 9], token(name: "a b"), "tokens 0909090909090909: token name b'a b' is not 1 to 64 of A-Z a-z 0-9 . _ -"),
        ("tokens", [9, 9, 9, 9, 9, 9, 9, 9], token(), "tokens 0909090909090909: a second token is named ios-app"),
        ("tokens", [9, 9, 9, 9, 9, 9, 9], token(name: "b"), "tokens: tokens key is 7 bytes, not 8"),
        ("idempotency", idempotencyKey, Array(idempotencyValue.dropLast()),
         "idempotency 0102030405060708" + String(repeating: "11", count: 32) + ": value is 80 bytes, not 81"),
        ("idempotency", Array(idempotencyKey.dropLast()), idempotencyValue, "idempotency: idempotency key is 39 bytes, not 40"),
        ("idempotency", idempotencyKey, [2] + idempotencyValue.dropFirst(),
         "idempotency 0102030405060708" + String(repeating: "11", count: 32) + ": idempotency value version 2 is not one this reader knows (1)"),
    ] as [(String, [UInt8], [UInt8], String)])
    func pythonRefusesEachDamagedEntryNamingTheRule(_ database: String, key: [UInt8], value: [UInt8], refusal: String) throws {
        let directory = TemporaryDirectory()
        let copy = try DamagedCopy(of: try Self.store(in: directory))
        try copy.put(value, forKey: key, in: database)
        let result = try PythonReader.run(copy.path)
        #expect(result.status == 2)
        #expect(result.error == "read_store.py: refused \(copy.path): \(refusal)\n")
    }
}
