import ShareLog

/// Strong entity tags (RFC 9110 §8.8.3) for a share's representations, and
/// the `If-None-Match` test.
///
/// A tag is a 64-bit FNV-1a hash of everything the body is made of: the
/// representation, the gateway's page settings, the share's times and its
/// card. A share's card never changes, so the tag changes only when the
/// body would; cost O(card bytes).
public struct EntityTag: Hashable, Sendable, CustomStringConvertible {
    /// The quoted field value, e.g. `"v-3f9a0c1d2e4b5a69"`.
    public let description: String

    /// The tag of `representation` of `share`, as rendered with settings whose
    /// fingerprint is `settings`.
    public init(_ representation: Representation, of share: Share, settings: UInt64) {
        var hash = FNV1a(seed: settings)
        withUnsafeBytes(of: share.recordName.uuid.uuid) { hash.add($0) }
        hash.add(share.createdAt.milliseconds)
        hash.add(share.expiresAt.milliseconds)
        hash.add(share.vCard)
        description = "\"\(representation.tag)-\(String(hash.value, radix: 16))\""
    }

    /// Whether an `If-None-Match` field value names this tag, or is `*`.
    /// Weak comparison (RFC 9110 §13.1.2): a `W/` prefix is ignored.
    public func matches(ifNoneMatch field: String) -> Bool {
        for candidate in field.split(separator: ",") {
            var tag = candidate.trimmingWhitespace()
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == description { return true }
        }
        return false
    }
}

/// 64-bit FNV-1a: a fast hash for entity tags. Not a defence against a
/// chosen collision, which an ETag does not need: only the server makes them.
struct FNV1a {
    private(set) var value: UInt64

    init(seed: UInt64 = 0) { value = 0xCBF2_9CE4_8422_2325 ^ seed }

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
    }

    mutating func add(_ integer: Int64) {
        withUnsafeBytes(of: integer.littleEndian) { add($0) }
    }

    mutating func add(_ text: String) { add(text.utf8) }
}
