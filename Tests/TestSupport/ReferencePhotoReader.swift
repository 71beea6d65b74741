/// Which photos a vCard's bytes can hold, read from RFC 6350 and RFC 4648
/// alone, as plainly as possible, so that `VCardPreviewTests` and
/// `VCardFuzzTarget` can hold a parsed photo against it. It shares no code
/// with ShareLog's parser and does not call Foundation's base64 decoder.
///
/// A content line ends at an LF that is not followed by a space or tab (a
/// fold, RFC 6350 §3.2). With its spaces, tabs, CRs and LFs removed, the text
/// of a line after its last `:` or `,` is a candidate: an inline
/// (`ENCODING=b`) photo's base64 follows the property's `:`, a `data:` URI's
/// follows its `,`, and base64 holds neither character.
public enum ReferencePhotoReader {
    /// Whether some content line of `card` ends in the base64 text of `photo`.
    public static func holds(_ photo: [UInt8], in card: [UInt8]) -> Bool {
        lines(of: card).contains { line in
            let start = line.lastIndex { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ",") }.map { $0 + 1 } ?? line.startIndex
            return decodeBase64(line[start...]) == photo
        }
    }

    /// The content lines of `card`, unfolded, without any space, tab, CR or LF.
    public static func lines(of card: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = [[]]
        for (index, byte) in card.enumerated() {
            switch byte {
            case UInt8(ascii: "\n"):
                let next = index + 1 < card.count ? card[index + 1] : nil
                if next != UInt8(ascii: " "), next != UInt8(ascii: "\t") { lines.append([]) }
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                continue
            default:
                lines[lines.count - 1].append(byte)
            }
        }
        return lines
    }

    /// RFC 4648 base64: groups of four characters, `=` only as the last one
    /// or two. Bits left over after the last byte are ignored.
    public static func decodeBase64(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        let text = Array(text)
        guard !text.isEmpty, text.count % 4 == 0 else { return nil }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: text.count, by: 4) {
            let group = text[start..<start + 4]
            let padding = group.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard padding <= 2, padding == 0 || start + 4 == text.count else { return nil }
            var value: UInt32 = 0
            for character in group.prefix(4 - padding) {
                guard let digit = alphabet.firstIndex(of: character) else { return nil }
                value = value << 6 | UInt32(digit)
            }
            value <<= 6 * UInt32(padding)
            bytes += [UInt8(value >> 16), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)].prefix(3 - padding)
        }
        return bytes
    }
}
