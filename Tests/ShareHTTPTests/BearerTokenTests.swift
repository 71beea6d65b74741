import Foundation
import Testing
import ShareHTTP
import ShareLog

/// A bearer token's text form, its strict parse and its SHA-256 (docs/HTTP.md
/// "Tokens"). The expected values were computed with Python:
/// `base64.urlsafe_b64encode(bytes(range(32)))` and
/// `hashlib.sha256(bytes(range(32))).hexdigest()`, not by ShareHTTP.
@Suite struct BearerTokenTests {
    /// Id 0102030405060708, secret the bytes 0 to 31.
    static let known = "slt_0102030405060708_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
    static let knownHash = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func aKnownTokenParsesToItsIdAndHashesAsPythonSays() throws {
        let token = try BearerToken(parsing: Self.known)
        #expect(token.id.description == "0102030405060708")
        #expect(Self.hex(token.secretHash) == Self.knownHash)
        #expect(token.text == Self.known)
        #expect("\(token)" == "token 0102030405060708")
    }

    /// The secret of all 0xFF bytes uses both characters base64url changes.
    @Test func theSecretIsBase64URLWithoutPadding() throws {
        let text = "slt_ffffffffffffffff_" + String(repeating: "_", count: 42) + "8"
        let token = try BearerToken(parsing: text)
        #expect(token.text == text)
        #expect(Self.hex(token.secretHash) == "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051")
    }

    @Test func aGeneratedTokenIsNewEachTimeAndReadsBack() throws {
        let first = BearerToken.generate(), second = BearerToken.generate()
        #expect(first.text.count == 64)
        #expect(first.text.hasPrefix("slt_"))
        #expect(first.text != second.text)
        #expect(first.id != second.id)
        let parsed = try BearerToken(parsing: first.text)
        #expect(parsed.id == first.id && parsed.secretHash == first.secretHash)
        #expect(!"\(first)".contains(String(first.text.suffix(43))))
    }

    @Test(arguments: [
        ("", BearerTokenError.wrongLength(0)),
        (known + "=", .wrongLength(65)),
        (" " + known.dropLast(), .wrongPrefix),
        ("SLT_" + known.dropFirst(4), .wrongPrefix),
        ("slt-" + known.dropFirst(4), .wrongPrefix),
        ("slt_0102030405060708-" + known.dropFirst(21), .wrongPrefix),
        ("slt_01020304050607AB_" + known.dropFirst(21), .malformedID),
        ("slt_010203040506070g_" + known.dropFirst(21), .malformedID),
        (String(known.dropLast()) + "9", .malformedSecret),
        (String(known.dropLast()) + "=", .malformedSecret),
        (String(known.dropLast()) + "+", .malformedSecret),
    ] as [(String, BearerTokenError)])
    func anythingElseIsRefusedSayingWhichPart(_ text: String, error: BearerTokenError) {
        #expect(throws: error, "\(text)") { try BearerToken(parsing: text) }
    }

    @Test func theErrorSaysWhatATokenLooksLike() {
        #expect("\(BearerTokenError.malformedID)"
            == "not a token: its id is not 16 lowercase hex digits; a token is slt_, 16 lowercase hex digits, _ and 43 base64url characters, "
            + "as 'sharelog token create' printed it")
    }

    @Test func aTokenMatchesOnlyTheStoredTokenWithItsIdAndHash() throws {
        let token = try BearerToken(parsing: Self.known)
        func stored(id: String, hash: [UInt8]) -> StoredToken {
            StoredToken(id: TokenID(hex: id)!, name: "t", scopes: .all, createdAt: Timestamp(milliseconds: 0), expiresAt: nil, secretHash: hash)
        }
        let hash = stride(from: 0, to: 64, by: 2).map { UInt8(Self.knownHash.dropFirst($0).prefix(2), radix: 16)! }
        #expect(token.matches(stored(id: "0102030405060708", hash: hash)))
        var other = hash
        other[31] ^= 1
        #expect(!token.matches(stored(id: "0102030405060708", hash: other)))
        #expect(!token.matches(stored(id: "0102030405060709", hash: hash)))
    }
}
