import Foundation
import ShareLog
import ShareSync

/// What an upload's `Idempotency-Key` becomes in the store
/// (`UploadClaim`, docs/HTTP.md "Exactly once"):
///
/// - the key's hash: SHA-256 of the key's text;
/// - the request's fingerprint: SHA-256 of the TTL in seconds (8 bytes,
///   big-endian) and the card, so the same card and TTL match whether they
///   came as `text/vcard` or as JSON;
/// - the share's record name: the first 16 bytes of HMAC-SHA-256 under the
///   token's stored hash of "sharelog upload v1", a zero byte and the key's
///   hash, with the UUID version 4 and variant bits set (122 bits from the
///   HMAC). Another replica holding the same token derives the same name
///   for a retry that reached it; nobody without the token's hash can
///   derive or guess it.
public enum UploadIdentity {
    /// The longest key taken, in characters.
    static let maximumKeyLength = 255

    /// The key's text: an RFC 8941 string (`"…"`, as the draft asks) or a
    /// bare token of visible ASCII, 1 to 255 characters either way.
    ///
    /// - Returns: nil for anything else.
    public static func key(in header: String?) -> String? {
        guard var text = header?.trimmingCharacters(in: [" ", "\t"]), !text.isEmpty else { return nil }
        if text.hasPrefix("\"") {
            guard text.count >= 3, text.hasSuffix("\"") else { return nil }
            text = String(text.dropFirst().dropLast())
        }
        // No quote or backslash inside: an escaped string is not taken.
        guard text.count <= maximumKeyLength, !text.contains("\""), !text.contains("\\"),
              text.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { return nil }
        return text
    }

    /// The claim an upload of `upload` under `key` by `token` makes.
    static func claim(key: String, upload: ShareUpload, token: StoredToken) -> UploadClaim {
        let keyHash = OpenSSLCrypto.sha256(Array(key.utf8))
        let seconds = UInt64(bitPattern: upload.ttl.components.seconds)
        let ttl = (0..<8).reversed().map { UInt8(truncatingIfNeeded: seconds >> (8 * UInt64($0))) }
        let fingerprint = OpenSSLCrypto.sha256(ttl, upload.vCard)
        var name = Array(OpenSSLCrypto.hmacSHA256(key: token.secretHash, parts: [Array("sharelog upload v1".utf8), [0], keyHash]).prefix(16))
        name[6] = name[6] & 0x0F | 0x40
        name[8] = name[8] & 0x3F | 0x80
        let uuid = UUID(uuid: (name[0], name[1], name[2], name[3], name[4], name[5], name[6], name[7],
                               name[8], name[9], name[10], name[11], name[12], name[13], name[14], name[15]))
        return UploadClaim(token: token.id, keyHash: keyHash, fingerprint: fingerprint, recordName: RecordName(uuid: uuid))
    }
}
