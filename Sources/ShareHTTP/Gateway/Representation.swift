/// The forms one share link is served in (docs/HTTP.md "Content negotiation").
public enum Representation: CaseIterable, Hashable, Sendable {
    /// The fallback page for people without iOS.
    case page
    /// The stored card, byte for byte.
    case vCard
    /// A record shaped like CloudKit Web Services' `records/lookup` answer.
    case json
    /// The share's events as sync encodes them, for a clip's own store.
    case events

    /// The media type this representation is named by in `Accept`.
    public var mediaType: String {
        switch self {
        case .page: "text/html"
        case .vCard: "text/vcard"
        case .json: "application/json"
        case .events: Representation.eventsMediaType
        }
    }

    /// The `Content-Type` field value it is sent with.
    public var contentType: String {
        switch self {
        case .page: "text/html; charset=utf-8"
        case .vCard: "text/vcard; charset=utf-8"
        case .json: "application/json; charset=utf-8"
        case .events: Representation.eventsMediaType
        }
    }

    /// ShareLog's own media type for a share's events (docs/HTTP.md).
    public static let eventsMediaType = "application/vnd.sharelog.events"

    /// One letter per representation, so the ETags of two representations
    /// of the same share never match.
    var tag: String {
        switch self {
        case .page: "h"
        case .vCard: "v"
        case .json: "j"
        case .events: "e"
        }
    }
}
