/// Walks the content lines of a vCard body and yields the properties the preview reads.
///
/// Each content line costs one word-at-a-time search per physical line for its LF and a read
/// of its name; only FN, N, TITLE, ROLE, ORG, PHOTO and END lines are parsed further. Nothing
/// is copied. Precondition: `body` comes from ``VCardValidator/bodyRange(in:)``.
struct VCardScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    private var position: Int

    init(bytes: UnsafeBufferPointer<UInt8>, body: Range<Int>) {
        self.bytes = bytes
        end = body.upperBound
        position = body.lowerBound
    }

    /// The next property the preview reads, or `nil` when the body is exhausted.
    mutating func next() -> VCardProperty? {
        while position < end {
            let start = position
            let lineEnd = findLineEnd()
            if let property = VCardProperty(bytes: bytes, start: start, end: lineEnd) {
                return property
            }
        }
        return nil
    }

    /// Moves ``position`` past the content line starting there and returns the index where
    /// its content ends (its final CRLF or LF excluded). A line break followed by a space or
    /// tab is a fold, not an end.
    private mutating func findLineEnd() -> Int {
        var searchFrom = position
        while let lineFeed = VCardByte.firstLineFeed(in: bytes, from: searchFrom, to: end) {
            let next = lineFeed + 1
            if next < end, bytes[next] == VCardByte.space || bytes[next] == VCardByte.tab {
                searchFrom = next + 1
                continue
            }
            let contentEnd = lineFeed > position && bytes[lineFeed - 1] == VCardByte.carriageReturn ? lineFeed - 1 : lineFeed
            position = next
            return contentEnd
        }
        position = end
        return end
    }
}
