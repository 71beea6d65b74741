import Foundation
import ShareLog

/// The names a relay gives its messages (docs/SCALING.md "Subjects").
///
/// `<prefix>.<origin>.<shard>`: the origin is the replica that made the
/// event (32 hex digits), the shard the first byte of the share's record
/// name (2 hex digits, 256 shards). A share's events all land in one
/// shard, so a deployment can split the stream by shard later (one stream
/// per range of shards, each listing its subjects) without changing what
/// a message holds. An event of a kind this version does not know has no
/// record name, and goes to shard `xx`.
enum RelaySubjects {
    static func subject(for event: Event, prefix: String) -> String {
        "\(prefix).\(token(of: event.id.origin.uuid))." + (event.recordName.map { hexByte($0.uuid.uuid.0) } ?? "xx")
    }

    /// JetStream's message id: the event's id, so that a retried publish
    /// is recognised as the message the stream holds.
    static func messageID(for event: Event) -> String {
        "\(event.id.origin)/\(event.id.counter)"
    }

    /// The 32 lowercase hex digits of `uuid`: a subject token (no dashes, dots or wildcards).
    static func token(of uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { $0.map(hexByte).joined() }
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
