/// Something in a vCard that the preview could not show, reported instead of failing.
///
/// The raw value is the stable code written in the preview's JSON.
public enum VCardWarning: String, Sendable, Equatable, Codable, CaseIterable, CustomStringConvertible {
    /// The card has neither a usable FN nor a usable N, so the preview has no name.
    case missingName
    /// The PHOTO property has no data.
    case photoEmpty
    /// The PHOTO data is not valid base64 (or its `data:` URI is malformed).
    case photoCorrupt
    /// The PHOTO uses an encoding other than base64 (such as quoted-printable).
    case photoUnsupportedEncoding
    /// The PHOTO is a link to an image elsewhere; the preview never downloads.
    case photoNotEmbedded

    public var description: String {
        switch self {
        case .missingName:
            "The card has no name (neither FN nor N), so none is shown. Add a name in Contacts and share the card again."
        case .photoEmpty:
            "The card's photo is empty, so no photo is shown. Set the photo in Contacts and share the card again."
        case .photoCorrupt:
            "The card's photo data is damaged (not valid base64), so no photo is shown. Export the card from Contacts again."
        case .photoUnsupportedEncoding:
            "The card's photo uses an encoding other than base64, so no photo is shown. Export the card from Contacts, which uses base64."
        case .photoNotEmbedded:
            "The card's photo is a link to an image elsewhere, which the preview does not download. Embed the photo in the card to show it."
        }
    }
}
