import Foundation
import ShareClip
import ShareLog

/// What `POST /v1/shares` asks for: a card and how long it lives, read
/// from the request's body in one of two forms (docs/HTTP.md "The write API"):
///
/// - `text/vcard`: the body is the card, byte for byte; the share lives
///   the store's default TTL (7 days);
/// - `application/json`: an object `{"vcard": "BEGIN:VCARD…", "ttl": 604800}`,
///   the card as a JSON string and the TTL in whole seconds (optional;
///   the default as above). Any other key is refused, so a misspelt
///   `ttl` is an error rather than a week.
///
/// Parsing checks the form only. The card and TTL get the same checks as
/// every other creation when the store makes the share
/// (`ShareLogError.invalidVCard`, `.invalidTTL`).
public struct ShareUpload: Sendable, Equatable {
    public let vCard: [UInt8]
    public let ttl: Duration

    /// The most bytes of body an upload may have: the vCard limit, and
    /// 64 KiB for the JSON form's quoting and its other fields. A card
    /// inside that is still over the vCard limit is refused by the store.
    public static let bodyLimit = VCardValidator.maximumByteCount + 65_536

    public init(vCard: [UInt8], ttl: Duration = ShareStore.defaultTTL) {
        self.vCard = vCard
        self.ttl = ttl
    }

    /// Reads an upload from a body sent with the `Content-Type` field
    /// `contentType`. Media type names and parameters are matched without
    /// regard to case; a `charset` other than UTF-8 is refused, as the
    /// store keeps UTF-8 cards only.
    ///
    /// - Throws: `UploadRefusal` saying what is wrong, never quoting the body.
    public static func parse(contentType: String?, body: [UInt8]) throws(UploadRefusal) -> ShareUpload {
        guard let contentType else { throw .unsupportedMediaType(nil) }
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let parameters = parts.dropFirst()
        for parameter in parameters where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard charset == "utf-8" else { throw .unsupportedCharset(String(charset)) }
        }
        switch parts.first {
        case "text/vcard", "text/x-vcard": return ShareUpload(vCard: body)
        case "application/json": return try json(body)
        default: throw .unsupportedMediaType(contentType)
        }
    }

    /// The JSON form, read in three steps so that each refusal names the
    /// field at fault: the object and its keys, the card, the TTL.
    private static func json(_ body: [UInt8]) throws(UploadRefusal) -> ShareUpload {
        let data = Data(body)
        let decoder = JSONDecoder()
        guard let keys = try? decoder.decode([String: AnyJSONValue].self, from: data).keys else {
            throw .malformedJSON("the body is not a JSON object")
        }
        if let unknown = keys.sorted().first(where: { $0 != "vcard" && $0 != "ttl" }) {
            throw .malformedJSON("unknown key \"\(unknown)\"; an upload has \"vcard\" and \"ttl\"")
        }
        guard let card = try? decoder.decode(CardField.self, from: data).vcard else {
            throw .malformedJSON("\"vcard\" must be the card, as a string")
        }
        let ttl: Int64?
        do { ttl = try decoder.decode(TTLField.self, from: data).ttl } catch {
            throw .malformedJSON("\"ttl\" must be a whole number of seconds")
        }
        return ShareUpload(vCard: Array(card.utf8), ttl: ttl.map { .seconds($0) } ?? ShareStore.defaultTTL)
    }

    /// Any JSON value, read and dropped: the keys are what is wanted.
    private struct AnyJSONValue: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    private struct CardField: Decodable { let vcard: String }

    /// The TTL, nil when absent; a value that is not a whole number of
    /// seconds (a string, `true`, 1.5) fails to decode.
    private struct TTLField: Decodable { let ttl: Int64? }
}
