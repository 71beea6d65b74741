extension VCardPreview {
    /// Validates `bytes` and builds the preview from the properties ``VCardScanner`` yields.
    /// Without `includingPhoto` the PHOTO is skipped, undecoded: the preview's
    /// `photo` is nil, and the cost is that of the text fields alone.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, includingPhoto: Bool = true) -> Result<VCardPreview, VCardError> {
        let body: Range<Int>
        switch VCardValidator.bodyRange(in: bytes) {
        case .success(let range): body = range
        case .failure(let error): return .failure(error)
        }
        var formattedName: String?
        var structuredName: String?
        var title: String?
        var role: String?
        var organization: String?
        var photo: VCardPhoto?
        var photoSeen = false
        var warnings: [VCardWarning] = []

        var scanner = VCardScanner(bytes: bytes, body: body)
        scan: while let property = scanner.next() {
            switch property.name {
            case .formattedName where formattedName == nil:
                formattedName = VCardText.plain(property, in: bytes)
            case .name where structuredName == nil:
                structuredName = displayName(fromStructuredName: property, in: bytes)
            case .title where title == nil:
                title = VCardText.plain(property, in: bytes)
            case .role where role == nil:
                role = VCardText.plain(property, in: bytes)
            case .organization where organization == nil:
                let components = VCardText.decode(property, in: bytes, splitsComponents: true, splitsValues: false)
                organization = VCardText.nonEmpty(components[0][0])
            case .photo where includingPhoto && !photoSeen:
                photoSeen = true
                photo = VCardPhotoDecoder.decode(property, in: bytes, warnings: &warnings)
            case .end where VCardText.plain(property, in: bytes)?.uppercased() == "VCARD":
                break scan
            default:
                continue
            }
        }
        let name = formattedName ?? structuredName
        if name == nil {
            warnings.insert(.missingName, at: 0)
        }
        return .success(VCardPreview(name: name, title: title ?? role, organization: organization, photo: photo, warnings: warnings))
    }

    /// N's components are family; given; additional; prefixes; suffixes, each possibly a
    /// comma-separated list. Reading order is prefixes, given, additional, family, suffixes.
    private static func displayName(fromStructuredName property: VCardProperty, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let components = VCardText.decode(property, in: bytes, splitsComponents: true, splitsValues: true)
        let readingOrder = [3, 1, 2, 0, 4]
        let words = readingOrder.flatMap { index in
            index < components.count ? components[index].compactMap(VCardText.nonEmpty) : []
        }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
