/// Why an upload's body could not be read as one (`ShareUpload.parse`).
/// The descriptions never quote the body: a card is personal data, and an
/// error answer is logged and cached by clients.
public enum UploadRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// No `Content-Type`, or one that is neither `text/vcard` nor
    /// `application/json`: 415.
    case unsupportedMediaType(String?)
    /// A `charset` parameter other than UTF-8: 415.
    case unsupportedCharset(String)
    /// A JSON body that is not an upload object: 400.
    case malformedJSON(String)

    public var description: String {
        switch self {
        case .unsupportedMediaType(nil): "an upload needs a Content-Type: text/vcard or application/json"
        case .unsupportedMediaType(let type?): "Content-Type \(type) is not text/vcard or application/json"
        case .unsupportedCharset(let charset): "charset \(charset) is not UTF-8, the only one a card is kept in"
        case .malformedJSON(let reason): reason
        }
    }
}
