import Foundation

/// What the App Clip's first screen shows of a shared vCard: name, title, organisation, photo.
///
/// Built by ``init(parsing:)`` from vCard 2.1, 3.0 or 4.0 text as Apple's Contacts and other
/// writers export it. Fields are trimmed of surrounding whitespace and are `nil` rather than
/// empty. Anything the preview cannot show is listed in ``warnings``; only a card that fails
/// ``VCardValidator`` is an error.
///
/// JSON shape (every key always present, `null` when absent):
/// `{"name": String?, "title": String?, "organization": String?,
///   "photo": {"mediaType": String?, "byteCount": Int}?, "warnings": [String]}`,
/// where each warning is a ``VCardWarning`` raw value. Photo bytes are never in JSON.
public struct VCardPreview: Sendable, Equatable {
    /// FN; if FN is missing or blank, the parts of N in reading order
    /// (prefix, given, additional, family, suffix) joined by spaces.
    public let name: String?
    /// TITLE; if TITLE is missing or blank, ROLE.
    public let title: String?
    /// The first component of ORG (the organisation, not its units).
    public let organization: String?
    /// The first PHOTO, decoded; `nil` if there is none or it could not be decoded.
    public let photo: VCardPhoto?
    /// What the preview could not show, in the order found.
    public let warnings: [VCardWarning]

    public init(name: String?, title: String?, organization: String?, photo: VCardPhoto?, warnings: [VCardWarning]) {
        self.name = name
        self.title = title
        self.organization = organization
        self.photo = photo
        self.warnings = warnings
    }

    /// Validates `vCard` with ``VCardValidator`` and reads the preview fields from its first
    /// card (up to the first `END:VCARD`).
    ///
    /// Rules: property names, parameter names and values match in any letter case; a group
    /// prefix (`item1.`) is ignored; folded lines, CRLF or LF, a byte order mark and RFC 6350
    /// escapes are handled. For each field the first non-blank property wins; only the first
    /// PHOTO is considered. Lines that are malformed, and vCard 2.1 quoted-printable text, are
    /// not decoded.
    ///
    /// Cost: one pass over the bytes for validation and one to find line ends (both eight bytes
    /// per step), plus one pass over the photo's base64 and its decode. Only the properties read
    /// (FN, N, TITLE, ROLE, ORG, PHOTO, END) are unfolded; contiguous input (`[UInt8]`, `Data`)
    /// is not copied, and the decoded photo is the only large allocation.
    /// - Throws: ``VCardError`` if `vCard` is not a valid vCard.
    /// - Parameter includingPhoto: false skips the PHOTO undecoded (``photo``
    ///   is nil), for a caller that shows only the text fields.
    public init(parsing vCard: some Collection<UInt8>, includingPhoto: Bool = true) throws(VCardError) {
        if let result = vCard.withContiguousStorageIfAvailable({ Self.parse($0, includingPhoto: includingPhoto) }) {
            self = try result.get()
            return
        }
        let count = vCard.count
        guard count <= VCardValidator.maximumByteCount else { throw .tooLarge(byteCount: count) }
        self = try Array(vCard).withUnsafeBufferPointer { Self.parse($0, includingPhoto: includingPhoto) }.get()
    }
}
