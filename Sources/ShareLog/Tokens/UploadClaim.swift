/// What an upload under an `Idempotency-Key` brings to the store besides
/// its card: who sent it, the key, the request, and the record name its
/// share takes. The caller (ShareHTTP's write API) derives all four; the
/// store only compares and keeps them (docs/HTTP.md "Exactly once").
public struct UploadClaim: Hashable, Sendable {
    /// The token the request authenticated with.
    public let token: TokenID
    /// SHA-256 of the `Idempotency-Key` header's value (32 bytes).
    public let keyHash: [UInt8]
    /// A hash of the request (32 bytes): the same key with another body
    /// is refused.
    public let fingerprint: [UInt8]
    /// The record name the share takes. Derived from the token and the
    /// key, so that a retry reaching another replica that holds the same
    /// token names the same share, and sync keeps one.
    public let recordName: RecordName

    public init(token: TokenID, keyHash: [UInt8], fingerprint: [UInt8], recordName: RecordName) {
        precondition(keyHash.count == 32 && fingerprint.count == 32, "a key hash and a fingerprint are SHA-256 digests")
        self.token = token
        self.keyHash = keyHash
        self.fingerprint = fingerprint
        self.recordName = recordName
    }
}
