import Foundation
import ShareLog

/// How a store records its progress with one stream: the stream's epoch,
/// and the two entries of its `cursors` database the relay keeps.
///
/// A stream has no replica id or epoch of its own, so the relay derives
/// them: the epoch from the stream's name and creation time (a stream
/// deleted and created again under the same name starts over at sequence
/// 1, and gets a new epoch, so no cursor of the old one is read against
/// it), the two peer ids from the stream's name alone. The derivation is
/// HMAC-SHA256 under a fixed label, cut to 16 bytes: not a secret, only a
/// name no random replica id will ever take.
struct RelayStreamIdentity: Sendable, Equatable {
    let epoch: Epoch
    /// The cursor whose position is the last stream sequence this store
    /// applied (`sharelog peers` lists it).
    let consumed: ReplicaID
    /// The cursor whose position is the last position of this store's own
    /// log that the stream acknowledged.
    let published: ReplicaID

    init(stream: StreamInfo) {
        var created = stream.createdNanoseconds.bigEndian
        let createdBytes = withUnsafeBytes(of: &created) { Array($0) }
        epoch = Epoch(uuid: Self.derived(["epoch", stream.name], extra: createdBytes))
        consumed = ReplicaID(uuid: Self.derived(["consumed", stream.name]))
        published = ReplicaID(uuid: Self.derived(["published", stream.name]))
    }

    private static func derived(_ words: [String], extra: [UInt8] = []) -> UUID {
        let parts = words.map { Array("\($0)\u{0}".utf8) } + [extra]
        let mac = OpenSSLCrypto.hmacSHA256(key: Array("sharelog relay stream identity v1".utf8), parts: parts)
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: mac.prefix(16)) }
        return UUID(uuid: raw)
    }
}
