/// ASCII byte constants and word-at-a-time searches used to read vCards.
///
/// A namespace rather than `UInt8` extensions so it cannot collide with other byte helpers
/// in the module.
enum VCardByte {
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")
    static let comma = UInt8(ascii: ",")
    static let period = UInt8(ascii: ".")
    static let equals = UInt8(ascii: "=")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    /// The UTF-8 byte order mark, which some writers put first.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Space, tab, CR or LF: what may surround a vCard and what folding inserts.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || byte == lineFeed || byte == carriageReturn
    }

    /// ASCII uppercase of a letter; other bytes unchanged.
    static func uppercased(_ byte: UInt8) -> UInt8 {
        (0x61...0x7A).contains(byte) ? byte - 0x20 : byte
    }

    /// Whether `bytes[offset...]` starts with `keyword` (ASCII uppercase), ignoring letter case.
    static func hasPrefix(_ keyword: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, end: Int) -> Bool {
        let length = keyword.utf8CodeUnitCount
        guard end - offset >= length else { return false }
        let keywordBytes = UnsafeBufferPointer(start: keyword.utf8Start, count: length)
        for index in 0..<length where uppercased(bytes[offset + index]) != keywordBytes[index] {
            return false
        }
        return true
    }

    /// Index of the first LF in `bytes[from..<to]`, or `nil`. Reads eight bytes per step;
    /// O(to - from), no allocation.
    static func firstLineFeed(in bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let lineFeeds = ones &* UInt64(lineFeed)
        let raw = UnsafeRawBufferPointer(bytes)
        var index = from
        while index + 8 <= to {
            // A byte of `x` is zero exactly where the input byte is LF; the lowest flagged
            // byte of `zeroBytes` is always a true zero (the classic SWAR zero-byte test).
            let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ lineFeeds
            let zeroBytes = (x &- ones) & ~x & highBits
            if zeroBytes != 0 {
                return index + zeroBytes.trailingZeroBitCount / 8
            }
            index += 8
        }
        while index < to {
            if bytes[index] == lineFeed { return index }
            index += 1
        }
        return nil
    }

    /// Offset of the first byte that does not start or continue a valid UTF-8 scalar, or `nil`
    /// if all of `bytes` is valid UTF-8. ASCII runs are checked eight bytes per step; other
    /// scalars are checked by the standard library's UTF-8 parser (which refuses overlong
    /// forms, surrogates and values above U+10FFFF). O(n), no allocation.
    static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let raw = UnsafeRawBufferPointer(bytes)
        var index = 0
        while index < bytes.count {
            while index + 8 <= bytes.count,
                  raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < bytes.count else { break }
            if bytes[index] < 0x80 {
                index += 1
                continue
            }
            var iterator = UnsafeBufferPointer(rebasing: bytes[index...]).makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): index += scalar.count
            case .error, .emptyInput: return index
            }
        }
        return nil
    }
}
