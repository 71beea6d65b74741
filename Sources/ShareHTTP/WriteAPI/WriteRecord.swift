import ShareLog
import SharePrimitives

/// The write API's JSON answers (docs/HTTP.md "The write API"). Times are
/// milliseconds since 1970, as in the read API's records.
enum WriteRecord {
    /// An upload's 201: `{"recordName":…,"link":…,"createdAt":…,"expiresAt":…}`.
    static func receipt(_ share: CreatedShare) -> [UInt8] {
        Array("{\(fields(share))}\n".utf8)
    }

    /// The owner's view: the receipt's fields and `"state":"live"`, or
    /// `"state":"ended"` with `endedAt` and `endReason` (`ttl`, `revoked`).
    static func status(_ share: CreatedShare, ended: (at: Timestamp, reason: ExpiryReason)?) -> [UInt8] {
        guard let ended else { return Array("{\(fields(share)),\"state\":\"live\"}\n".utf8) }
        return Array("{\(fields(share)),\"state\":\"ended\",\"endedAt\":\(ended.at.milliseconds),\"endReason\":\(JSONText.quoted(ended.reason.description))}\n".utf8)
    }

    /// A revocation of a share that had ended: 410's body.
    static func ended(_ name: RecordName, at: Timestamp, reason: ExpiryReason) -> [UInt8] {
        CardRecord.error(name, code: "EXPIRED", reason: "the share has ended", ended: (at, reason))
    }

    private static func fields(_ share: CreatedShare) -> String {
        "\"recordName\":\"\(share.recordName)\",\"link\":\(JSONText.quoted(share.link)),"
            + "\"createdAt\":\(share.createdAt.milliseconds),\"expiresAt\":\(share.expiresAt.milliseconds)"
    }
}
