import ShareLog
import SharePrimitives

/// The JSON form of a share: shaped like CloudKit Web Services'
/// `records/lookup` answer, so a client written against CloudKit's public
/// database reads it with few changes (docs/HTTP.md "JSON").
///
/// A live share:
/// `{"records":[{"recordName":"…","recordType":"Card","fields":{"vcard":{"value":"BEGIN:VCARD…","type":"STRING"},
///   "createdAt":{"value":1767225600000,"type":"TIMESTAMP"},"expiresAt":{"value":…,"type":"TIMESTAMP"}}}]}`
///
/// A record that cannot be returned is an error entry in `records`, as
/// CloudKit writes one: `{"recordName":"…","serverErrorCode":"NOT_FOUND","reason":"…"}`,
/// and for an ended share also `expiredAt` and `expiryReason`. A request
/// with no valid record name gets a top-level `{"serverErrorCode":…,"reason":…}`.
public enum CardRecord {
    /// The record of a live share. The card is UTF-8 text (the validator
    /// refuses anything else), sent as a JSON string.
    public static func live(_ share: Share) -> [UInt8] {
        let card = JSONText.quoted(String(decoding: share.vCard, as: UTF8.self))
        return Array("""
        {"records":[{"recordName":"\(share.recordName)","recordType":"Card","fields":{"vcard":{"value":\(card),"type":"STRING"},\
        "createdAt":{"value":\(share.createdAt.milliseconds),"type":"TIMESTAMP"},\
        "expiresAt":{"value":\(share.expiresAt.milliseconds),"type":"TIMESTAMP"}}}]}

        """.utf8)
    }

    /// The error entry for `name`: `NOT_FOUND`, or `EXPIRED` with when and why.
    public static func error(_ name: RecordName, code: String, reason: String, ended: (at: Timestamp, reason: ExpiryReason)? = nil) -> [UInt8] {
        var entry = "{\"recordName\":\"\(name)\",\"serverErrorCode\":\(JSONText.quoted(code)),\"reason\":\(JSONText.quoted(reason))"
        if let ended {
            entry += ",\"expiredAt\":\(ended.at.milliseconds),\"expiryReason\":\(JSONText.quoted(ended.reason.description))"
        }
        return Array("{\"records\":[\(entry)}]}\n".utf8)
    }

    /// A top-level error, for requests with no valid record name.
    public static func error(code: String, reason: String) -> [UInt8] {
        Array("{\"serverErrorCode\":\(JSONText.quoted(code)),\"reason\":\(JSONText.quoted(reason))}\n".utf8)
    }
}
