import Foundation

private typealias Byte = AppClipLinkByte

extension AppClipLinkParser {
    /// The UUID in the query's single `id` item.
    ///
    /// Items are split on `&`; an item's name is everything before its first `=` and is
    /// percent-decoded before it is compared, case-sensitively, with `id`. An item with no `=`
    /// has an empty value. The value is percent-decoded and must then be exactly 36 characters
    /// in the 8-4-4-4-12 hex form (either letter case); braces, `urn:uuid:` and unhyphenated
    /// forms are refused so that one card has one link text.
    /// Precondition: `query` passed `checkCharacters`, so every `%` has two hex digits.
    static func recordID(inQuery query: ArraySlice<UInt8>) throws(AppClipLinkError) -> UUID {
        var values: [ArraySlice<UInt8>] = []
        for item in query.split(separator: Byte.ampersand) {
            let nameEnd = item.firstIndex(of: Byte.equals) ?? item.endIndex
            guard percentDecoded(item[..<nameEnd]).elementsEqual("id".utf8) else { continue }
            values.append(nameEnd < item.endIndex ? item[(nameEnd + 1)...] : [])
        }
        guard let raw = values.first else { throw .missingID }
        guard values.count == 1 else { throw .duplicateID(values: values.map { text($0) }) }
        guard let id = uuid(fromCanonicalText: percentDecoded(raw)) else {
            throw .malformedID(value: text(raw))
        }
        return id
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == Byte.percent, let high = Byte.hexValue(bytes[index + 1]), let low = Byte.hexValue(bytes[index + 2]) {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    private static func uuid(fromCanonicalText bytes: [UInt8]) -> UUID? {
        let hyphens: Set<Int> = [8, 13, 18, 23]
        guard bytes.count == 36 else { return nil }
        for (offset, byte) in bytes.enumerated() {
            guard hyphens.contains(offset) ? byte == Byte.hyphen : Byte.isHexDigit(byte) else { return nil }
        }
        return UUID(uuidString: text(bytes))
    }
}
