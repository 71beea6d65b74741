/// Why bytes are not a vCard the store keeps or the preview reads (the store's
/// `ShareLogError.invalidVCard` carries it as its cause).
///
/// The checks run in the order of the cases below and the first failure is reported.
public enum VCardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The card is larger than ``VCardValidator/maximumByteCount`` (1 MiB, CloudKit's record limit).
    case tooLarge(byteCount: Int)
    /// The bytes are not valid UTF-8; `byteOffset` is the first byte that is not.
    case notUTF8(byteOffset: Int)
    /// There are no bytes, or only whitespace and a byte order mark.
    case empty
    /// The first line (after an optional byte order mark and whitespace) is not `BEGIN:VCARD`.
    case missingBegin
    /// The last line (before trailing whitespace) is not `END:VCARD`.
    case missingEnd

    public var description: String {
        switch self {
        case .tooLarge(let byteCount):
            "The vCard is \(byteCount) bytes, more than the limit of \(VCardValidator.maximumByteCount) bytes (1 MiB). Use a smaller photo and export the card again."
        case .notUTF8(let byteOffset):
            "The vCard is not UTF-8 text (byte \(byteOffset) is not valid UTF-8). Export the card again as UTF-8, as Contacts does."
        case .empty:
            "The vCard is empty. Export the contact from Contacts and try again."
        case .missingBegin:
            "This is not a vCard: it does not start with a BEGIN:VCARD line. Export the contact as a vCard (.vcf) and try again."
        case .missingEnd:
            "The vCard is incomplete: it does not end with an END:VCARD line (it may have been cut off). Export the contact again and try again."
        }
    }
}
