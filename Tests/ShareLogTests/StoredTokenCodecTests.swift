import Foundation
import Testing
@testable import ShareLog

/// A token's and an idempotency entry's bytes are exactly docs/FORMAT.md's
/// "Tokens" and "Idempotency keys": the expected bytes were written with
/// Python's `struct.pack` from the page, not by ShareLog.
@Suite struct StoredTokenCodecTests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static let id = TokenID(bytes: bytes("0102030405060708"))!
    /// 2026-12-01T10:00:00Z.
    static let createdAt = Timestamp(milliseconds: 1_796_119_200_000)
    /// `struct.pack(">BBqqqq", 1, 5, 1796119200000, 2**63-1, 0, 0) + b"\xab"*32 + b"\x07ios-app"`.
    static let iosApp = bytes(
        "0105000001a2310c01007fffffffffffffff00000000000000000000000000000000"
            + "abababababababababababababababababababababababababababababababab07696f732d617070")

    static func decode(_ value: [UInt8], key: [UInt8] = id.bytes) throws -> StoredToken {
        try key.withUnsafeBytes { key in try value.withUnsafeBytes { value in try StoredToken.decode(key: key, value: value) } }
    }

    @Test func aTokenIsEncodedAsTheFormatPageLaysItOut() throws {
        let token = StoredToken(
            id: Self.id, name: "ios-app", scopes: [.upload, .read], createdAt: Self.createdAt, expiresAt: nil,
            secretHash: [UInt8](repeating: 0xAB, count: 32))
        #expect(Self.hex(token.encoded()) == Self.hex(Self.iosApp))
        let decoded = try Self.decode(Self.iosApp)
        #expect(decoded == token)
        #expect(decoded.expiresAt == nil && decoded.revokedAt == nil && decoded.lastUsedAt == nil)
        #expect(decoded.scopes.names == ["upload", "read"])
    }

    @Test func revokedAndUsedTimesAndAnExpiryRoundTrip() throws {
        var token = StoredToken(
            id: Self.id, name: "A.b_c-9", scopes: .all, createdAt: Self.createdAt, expiresAt: Timestamp(milliseconds: 1_796_119_260_000),
            secretHash: Array(0..<32))
        token.revokedAt = Timestamp(milliseconds: 1_796_119_230_000)
        token.lastUsedAt = Timestamp(milliseconds: 1_796_119_210_000)
        let encoded = token.encoded()
        // scopes 0x07, then expiresAt 1796119260000 = 0x1a2310ceb60 (Python's hex) at offset 10.
        #expect(encoded[1] == 0x07)
        #expect(Self.hex(Array(encoded[10..<18])) == "000001a2310ceb60")
        #expect(try Self.decode(encoded) == token)
    }

    /// Each rule of "What a reader must refuse" for `tokens`, on a copy of
    /// the good value with one thing wrong.
    @Test(arguments: [
        ("version 2", { @Sendable (v: inout [UInt8]) in v[0] = 2 }, "not a token of value version 1"),
        ("scope bit 3", { @Sendable (v: inout [UInt8]) in v[1] = 0x0D }, "scope bits 0x0d set a bit above bit 2"),
        ("name longer than its length", { @Sendable (v: inout [UInt8]) in v.append(0x41) }, "the value is 75 bytes, not 67 plus its name's length"),
        ("name shorter than its length", { @Sendable (v: inout [UInt8]) in v.removeLast() }, "the value is 73 bytes, not 67 plus its name's length"),
        ("a space in the name", { @Sendable (v: inout [UInt8]) in v[70] = 0x20 }, "the name is not 1 to 64 of A-Z a-z 0-9 . _ -"),
        ("an empty name", { @Sendable (v: inout [UInt8]) in v.removeLast(7); v[66] = 0 }, "the name is not 1 to 64 of A-Z a-z 0-9 . _ -"),
    ] as [(String, @Sendable (inout [UInt8]) -> Void, String)])
    func aDamagedTokenIsRefusedNamingTheRule(_ what: String, damage: @Sendable (inout [UInt8]) -> Void, reason: String) {
        var value = Self.iosApp
        damage(&value)
        #expect(throws: ShareLogError.corruptKey(database: "tokens", key: Self.id.bytes, reason: reason), "\(what)") {
            try Self.decode(value)
        }
    }

    @Test func aTokenKeyThatIsNot8BytesIsRefused() {
        #expect(throws: ShareLogError.corruptKey(database: "tokens", key: [1, 2, 3], reason: "a token id is 8 bytes, not 3")) {
            try Self.decode(Self.iosApp, key: [1, 2, 3])
        }
    }

    @Test func anIdempotencyEntryIsEncodedAsTheFormatPageLaysItOut() throws {
        let name = try #require(RecordName("f119d597-a1a9-448f-8028-bcb3407e2f0e"))
        let origin = try #require(ReplicaID("c3deaad6-055c-4817-96a5-9e97c5469dba"))
        let entry = IdempotencyEntry(
            token: Self.id, keyHash: [UInt8](repeating: 0x11, count: 32), fingerprint: [UInt8](repeating: 0x22, count: 32),
            firstSeen: Self.createdAt, recordName: name, creation: EventID(origin: origin, counter: 42))
        #expect(Self.hex(entry.key) == "0102030405060708" + String(repeating: "11", count: 32))
        // struct.pack(">B", 1) + b"\x22"*32 + struct.pack(">q", 1796119200000) + name + origin + struct.pack(">Q", 42)
        #expect(Self.hex(entry.encodedValue()) == "01" + String(repeating: "22", count: 32) + "000001a2310c0100"
            + "f119d597a1a9448f8028bcb3407e2f0e" + "c3deaad6055c481796a59e97c5469dba" + "000000000000002a")
        let decoded = try entry.key.withUnsafeBytes { key in
            try entry.encodedValue().withUnsafeBytes { value in try IdempotencyEntry.decode(key: key, value: value) }
        }
        #expect(decoded == entry)
        var short = entry.encodedValue()
        short.removeLast()
        #expect(throws: ShareLogError.corruptKey(database: "idempotency", key: entry.key, reason: "the value is 80 bytes, not 81")) {
            try entry.key.withUnsafeBytes { key in try short.withUnsafeBytes { value in try IdempotencyEntry.decode(key: key, value: value) } }
        }
        var version = entry.encodedValue()
        version[0] = 2
        #expect(throws: ShareLogError.corruptKey(database: "idempotency", key: entry.key, reason: "not an entry of value version 1")) {
            try entry.key.withUnsafeBytes { key in try version.withUnsafeBytes { value in try IdempotencyEntry.decode(key: key, value: value) } }
        }
    }

    @Test func scopeNamesParseStrictly() {
        #expect(TokenScopes(names: "upload,revoke,read") == .all)
        #expect(TokenScopes(names: "read,upload") == [.upload, .read])
        for bad in ["", "upload,", "upload,upload", "Upload", "write", "upload revoke"] {
            #expect(TokenScopes(names: bad) == nil, "\(bad)")
        }
    }

    @Test func namesAreOneTo64OfTheAllowedCharacters() {
        for good in ["a", "ios-app", "A.b_c-9", String(repeating: "x", count: 64)] { #expect(StoredToken.isValidName(good), "\(good)") }
        for bad in ["", String(repeating: "x", count: 65), "a b", "é", "a/b", "a\n"] { #expect(!StoredToken.isValidName(bad), "\(bad)") }
    }
}
