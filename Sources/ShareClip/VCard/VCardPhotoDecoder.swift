import Foundation

/// Turns a PHOTO property into a ``VCardPhoto``, or a ``VCardWarning`` saying why it can't.
///
/// Accepted forms:
/// - vCard 3.0 / 2.1 inline base64: `ENCODING=b` or `ENCODING=BASE64` (any case, quoted or
///   not), or a bare `BASE64` parameter; the media type comes from `TYPE` (`JPEG`, `PNG`,
///   `GIF`, `HEIC`, `HEIF`, `TIFF`, `BMP`, `WEBP`, or a full `image/…` type) or `MEDIATYPE`.
/// - vCard 4.0 `data:` URIs with `;base64`: the media type comes from the URI, else from
///   `MEDIATYPE` / `TYPE`.
/// A type this decoder does not know gives a photo with a `nil` media type.
///
/// Cost: one pass over the folded base64 text to check its alphabet, then one Foundation
/// base64 decode reading the folded text in place (no copy of it is made); the decoded bytes
/// are the photo's only copy.
enum VCardPhotoDecoder {
    /// The decoded photo, or `nil` after appending the reason to `warnings`.
    static func decode(
        _ property: VCardProperty,
        in bytes: UnsafeBufferPointer<UInt8>,
        warnings: inout [VCardWarning]
    ) -> VCardPhoto? {
        var iterator = VCardUnfoldingIterator(bytes: bytes, start: property.valueStart, end: property.valueEnd)
        var scheme: [UInt8] = []
        while scheme.count < 5, let byte = iterator.next() {
            scheme.append(VCardByte.uppercased(byte))
        }
        if scheme.elementsEqual("DATA:".utf8) {
            return decodeDataURI(property, in: bytes, after: &iterator, warnings: &warnings)
        }
        let encodings = property.parameterValues(named: "ENCODING")
        if encodings.isEmpty, !property.parameterValues(named: "").contains("BASE64") {
            let blank = (property.valueStart..<property.valueEnd).allSatisfy { VCardByte.isWhitespace(bytes[$0]) }
            warnings.append(blank ? .photoEmpty : .photoNotEmbedded)
            return nil
        }
        guard encodings.allSatisfy({ $0 == "B" || $0 == "BASE64" }) else {
            warnings.append(.photoUnsupportedEncoding)
            return nil
        }
        guard let data = decodeBase64(bytes, from: property.valueStart, to: property.valueEnd, warnings: &warnings) else {
            return nil
        }
        return VCardPhoto(mediaType: declaredMediaType(of: property), bytes: data)
    }

    /// Reads `data:[<mediatype>][;<parameter>]*;base64,<data>` once `data:` has been read.
    private static func decodeDataURI(
        _ property: VCardProperty,
        in bytes: UnsafeBufferPointer<UInt8>,
        after iterator: inout VCardUnfoldingIterator,
        warnings: inout [VCardWarning]
    ) -> VCardPhoto? {
        var header: [UInt8] = []
        var sawComma = false
        while let byte = iterator.next() {
            if byte == VCardByte.comma {
                sawComma = true
                break
            }
            header.append(byte)
        }
        guard sawComma else {
            warnings.append(.photoCorrupt)
            return nil
        }
        let parts = header.split(separator: VCardByte.semicolon, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self).lowercased() }
        guard parts.count > 1, parts.last == "base64" else {
            warnings.append(.photoUnsupportedEncoding)
            return nil
        }
        guard let data = decodeBase64(bytes, from: iterator.position, to: property.valueEnd, warnings: &warnings) else {
            return nil
        }
        let uriType = parts[0].contains("/") ? parts[0] : nil
        return VCardPhoto(mediaType: uriType ?? declaredMediaType(of: property), bytes: data)
    }

    /// Decodes base64 text that may contain folds and other whitespace, without copying it.
    /// Any other character outside the base64 alphabet makes the photo corrupt.
    private static func decodeBase64(
        _ bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        warnings: inout [VCardWarning]
    ) -> Data? {
        // One table lookup and one add per byte, counting in three 21-bit fields (a card is at
        // most 1 MiB, so no field can overflow into the next): base64 characters including
        // `=`, then `=` alone, then bytes that are neither base64 nor whitespace.
        var counts: UInt64 = 0
        base64Classes.withUnsafeBufferPointer { classes in
            for index in start..<end {
                counts &+= classes[Int(bytes[index])]
            }
        }
        let significant = Int(counts & fieldMask)
        let padding = Int(counts >> 21 & fieldMask)
        guard significant > 0, let base = bytes.baseAddress else {
            warnings.append(counts >> 42 == 0 ? .photoEmpty : .photoCorrupt)
            return nil
        }
        // Foundation ignores a stray `=` and drops whatever follows one, so check length and
        // padding here: `=` may only end the text, at most twice.
        guard counts >> 42 == 0, significant % 4 == 0, padding <= 2,
              trailingPadding(bytes, from: start, to: end) == padding else {
            warnings.append(.photoCorrupt)
            return nil
        }
        // The Data only borrows the bytes for the decode call below and is gone when it returns.
        let text = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base + start), count: end - start, deallocator: .none)
        guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            warnings.append(.photoCorrupt)
            return nil
        }
        return decoded
    }

    /// The media type named by `MEDIATYPE`, else the first `TYPE` (or bare) value that names one.
    private static func declaredMediaType(of property: VCardProperty) -> String? {
        if let mediaType = property.parameterValues(named: "MEDIATYPE").first(where: { $0.contains("/") }) {
            return mediaType.lowercased()
        }
        let types = property.parameterValues(named: "TYPE") + property.parameterValues(named: "")
        for type in types {
            if type.contains("/") { return type.lowercased() }
            if let mediaType = imageTypes[type] { return mediaType }
        }
        return nil
    }

    private static let imageTypes: [String: String] = [
        "JPEG": "image/jpeg", "JPG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif",
        "HEIC": "image/heic", "HEIF": "image/heif", "TIFF": "image/tiff", "BMP": "image/bmp",
        "WEBP": "image/webp",
    ]

    /// The number of `=` at the end of `bytes[start..<end]`, whitespace between them ignored.
    private static func trailingPadding(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        var count = 0
        var index = end
        while index > start {
            index -= 1
            if bytes[index] == VCardByte.equals {
                count += 1
            } else if !VCardByte.isWhitespace(bytes[index]) {
                break
            }
        }
        return count
    }

    private static let fieldMask: UInt64 = (1 << 21) - 1

    /// For each byte value, what it adds to the counts in `decodeBase64`: 1 for
    /// `A-Z a-z 0-9 + /`, 1 + (1 << 21) for `=`, 0 for whitespace, 1 << 42 for anything else.
    private static let base64Classes: [UInt64] = (0...255).map { value in
        let byte = UInt8(value)
        if byte == VCardByte.equals { return 1 + (1 << 21) }
        if VCardByte.isWhitespace(byte) { return 0 }
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8
        return alphabet.contains(byte) ? 1 : 1 << 42
    }
}
