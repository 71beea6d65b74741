import Foundation
import ShareLog
import SharePrimitives
import ShareSync

/// A bearer token of the gateway's write API (docs/HTTP.md "Tokens"): an
/// 8-byte public id and a 32-byte secret, both from OpenSSL's `RAND_bytes`.
///
/// Its text form, which `sharelog token create` prints once and a client
/// sends as `Authorization: Bearer TEXT`, is 64 characters:
/// `slt_` ‖ the id as 16 lowercase hexadecimal digits ‖ `_` ‖ the secret
/// in base64url without padding (43 characters, RFC 4648 section 5). The
/// store keeps only the id and the secret's SHA-256 (`StoredToken`), so a
/// copy of the store authenticates nothing. Every cryptographic step is
/// OpenSSL's: `RAND_bytes`, SHA-256 through `EVP_Digest`, and
/// `CRYPTO_memcmp` to compare hashes in constant time.
///
/// The secret lives in a `SecretBytes`, which zeroes itself and never
/// prints; `description` shows the id only. `text` is the one way out.
public struct BearerToken: Sendable, CustomStringConvertible {
    public let id: TokenID
    private let secret: SecretBytes

    /// The secret's length in bytes.
    public static let secretSize = 32
    /// What every token's text starts with: "ShareLog token".
    public static let prefix = "slt_"
    /// The text form's length: prefix, 16 hex digits, `_`, 43 base64url.
    public static let textLength = 64

    /// A new token: 8 + 32 bytes from `RAND_bytes`. Traps when OpenSSL has
    /// no random source, a broken installation rather than a condition a
    /// caller can act on (Swift's own generator traps in the same case).
    public static func generate() -> BearerToken {
        guard let id = TokenID(bytes: OpenSSLCrypto.randomBytes(TokenID.size)) else { preconditionFailure("a token id is 8 bytes") }
        return BearerToken(id: id, secret: OpenSSLCrypto.randomSecret(secretSize))
    }

    init(id: TokenID, secret: SecretBytes) {
        precondition(secret.count == Self.secretSize, "a token's secret is \(Self.secretSize) bytes")
        self.id = id
        self.secret = secret
    }

    /// Parses a token's text form, strictly: exactly 64 characters, the
    /// `slt_` prefix, 16 lowercase hexadecimal digits, `_`, and 43
    /// base64url characters in canonical form (the last one's two unused
    /// bits zero), with nothing around them.
    ///
    /// - Throws: `BearerTokenError` saying which part is wrong.
    public init(parsing text: some StringProtocol) throws(BearerTokenError) {
        let bytes = Array(text.utf8)
        guard bytes.count == Self.textLength else { throw .wrongLength(bytes.count) }
        guard bytes.starts(with: Self.prefix.utf8) else { throw .wrongPrefix }
        let idEnd = Self.prefix.utf8.count + 2 * TokenID.size
        guard let id = TokenID(hex: String(decoding: bytes[Self.prefix.utf8.count..<idEnd], as: UTF8.self)) else { throw .malformedID }
        guard bytes[idEnd] == UInt8(ascii: "_") else { throw .wrongPrefix }
        guard let secret = Self.decodeBase64URL(bytes[(idEnd + 1)...]) else { throw .malformedSecret }
        self.init(id: id, secret: secret)
    }

    /// The token's text form. It holds the secret: show it once, to the
    /// person who made the token, and never log it.
    public var text: String {
        let encoded = secret.withUnsafeBytes { Data($0).base64EncodedString() }
        let url = encoded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return Self.prefix + id.description + "_" + url
    }

    /// The SHA-256 of the secret (32 bytes): what the store keeps.
    public var secretHash: [UInt8] { OpenSSLCrypto.sha256(secret) }

    /// Whether this token is `stored`: the same id, and the SHA-256 of this
    /// secret equal to the stored hash, compared with `CRYPTO_memcmp`, whose
    /// time does not depend on where the bytes differ.
    public func matches(_ stored: StoredToken) -> Bool {
        stored.id == id && OpenSSLCrypto.constantTimeEqual(secretHash, stored.secretHash)
    }

    /// The id only: the secret never prints.
    public var description: String { "token \(id)" }

    /// The 32 bytes that 43 base64url characters encode, or nil for any
    /// other character, or a form that is not canonical.
    private static func decodeBase64URL(_ characters: ArraySlice<UInt8>) -> SecretBytes? {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard characters.count == 43, characters.allSatisfy(alphabet.contains) else { return nil }
        var standard = characters.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
        standard.append(UInt8(ascii: "="))
        guard var decoded = Data(base64Encoded: Data(standard)).map(Array.init), decoded.count == secretSize else { return nil }
        defer { SecretBytes.erase(&decoded) }
        // Canonical only: one text per secret.
        guard Data(decoded).base64EncodedString().utf8.elementsEqual(standard) else { return nil }
        return SecretBytes(decoded)
    }
}
