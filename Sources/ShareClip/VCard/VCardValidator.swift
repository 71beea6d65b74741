/// The structural check every vCard passes before the store keeps it (and before the preview
/// reads it).
///
/// A valid vCard is at most ``maximumByteCount`` bytes of UTF-8 whose first line is
/// `BEGIN:VCARD` and whose last line is `END:VCARD`. Allowed around them: a UTF-8 byte order
/// mark, then spaces, tabs and blank lines, before `BEGIN`; spaces and tabs after `BEGIN:VCARD`
/// on its line; whitespace after `END:VCARD`. Keywords match in any letter case; lines end in
/// CRLF or LF (a lone CR is not a line end). A file holding several cards passes: it starts
/// with the first card's BEGIN and ends with the last card's END.
///
/// Nothing between the BEGIN and END lines is checked: the store keeps what Contacts exports.
public enum VCardValidator {
    /// 1 MiB, CloudKit's limit for one record.
    public static let maximumByteCount = 1_048_576

    /// Throws if `vCard` is not a valid vCard (see the type's documentation).
    ///
    /// Cost: one pass over the bytes (about 8 bytes per step for ASCII), no allocation for
    /// contiguous input such as `[UInt8]`, `ArraySlice` or `Data`; other collections are copied
    /// once, after their size is checked.
    /// - Throws: ``VCardError`` for the first rule the bytes break.
    public static func validate(_ vCard: some Collection<UInt8>) throws(VCardError) {
        if let result = vCard.withContiguousStorageIfAvailable({ bodyRange(in: $0) }) {
            _ = try result.get()
            return
        }
        let count = vCard.count
        guard count <= maximumByteCount else { throw .tooLarge(byteCount: count) }
        _ = try Array(vCard).withUnsafeBufferPointer { bodyRange(in: $0) }.get()
    }

    /// Validates `bytes` and returns the range holding the content lines between the BEGIN
    /// and END lines: from just after the BEGIN line's line break to just after the line
    /// break that precedes the END line (so every content line in it ends with LF).
    static func bodyRange(in bytes: UnsafeBufferPointer<UInt8>) -> Result<Range<Int>, VCardError> {
        guard bytes.count <= maximumByteCount else { return .failure(.tooLarge(byteCount: bytes.count)) }
        if let offset = VCardByte.firstInvalidUTF8(in: bytes) { return .failure(.notUTF8(byteOffset: offset)) }
        var start = bytes.starts(with: VCardByte.byteOrderMark) ? VCardByte.byteOrderMark.count : 0
        while start < bytes.count, VCardByte.isWhitespace(bytes[start]) { start += 1 }
        var end = bytes.count
        while end > start, VCardByte.isWhitespace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return .failure(.empty) }

        guard VCardByte.hasPrefix("BEGIN:VCARD", in: bytes, at: start, end: end) else { return .failure(.missingBegin) }
        var beginEnd = start + 11
        while beginEnd < end, bytes[beginEnd] == VCardByte.space || bytes[beginEnd] == VCardByte.tab { beginEnd += 1 }
        guard beginEnd < end else { return .failure(.missingEnd) }
        guard bytes[beginEnd] == VCardByte.lineFeed || bytes[beginEnd] == VCardByte.carriageReturn else {
            return .failure(.missingBegin)
        }
        let crlf = bytes[beginEnd] == VCardByte.carriageReturn && beginEnd + 1 < end && bytes[beginEnd + 1] == VCardByte.lineFeed
        let bodyStart = beginEnd + (crlf ? 2 : 1)

        var lastLineStart = end
        while lastLineStart > bodyStart, bytes[lastLineStart - 1] != VCardByte.lineFeed { lastLineStart -= 1 }
        guard bytes[lastLineStart - 1] == VCardByte.lineFeed, end - lastLineStart == 9,
              VCardByte.hasPrefix("END:VCARD", in: bytes, at: lastLineStart, end: end) else {
            return .failure(.missingEnd)
        }
        return .success(bodyStart..<lastLineStart)
    }
}
