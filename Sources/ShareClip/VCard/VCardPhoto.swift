import Foundation

/// A photo embedded in a vCard, decoded.
///
/// JSON shape (see ``VCardPreview``): `{"mediaType": "image/jpeg" | null, "byteCount": 1234}`.
/// The image bytes are never written to JSON, so a photo decoded from JSON has empty
/// ``bytes`` and the ``byteCount`` the JSON states; re-parse the vCard to get the image.
/// A photo parsed from a vCard always has `bytes.count == byteCount > 0`.
public struct VCardPhoto: Sendable, Equatable {
    /// The image's media type, such as `image/jpeg`, in lowercase; `nil` when the card does not
    /// say or names a type this parser does not know.
    public let mediaType: String?
    /// The decoded image bytes, ready for an image decoder.
    public let bytes: Data
    /// The number of image bytes.
    public let byteCount: Int

    public init(mediaType: String?, bytes: Data) {
        self.mediaType = mediaType
        self.bytes = bytes
        byteCount = bytes.count
    }
}
