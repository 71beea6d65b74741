/// Decodes text property values: unfolds, resolves escapes, and splits structured values.
///
/// Escapes (RFC 6350 §3.4): `\n` and `\N` become a line break, `\,` `\;` `\\` their character;
/// any other escaped character is kept without its backslash, and a trailing lone backslash
/// is kept. Only unescaped separators split.
enum VCardText {
    /// The property's value as components (split at unescaped `;` when `splitsComponents`),
    /// each a list of values (split at unescaped `,` when `splitsValues`).
    /// A value with neither split is `[[text]]`. Cost: O(value length), one small buffer.
    static func decode(
        _ property: VCardProperty,
        in bytes: UnsafeBufferPointer<UInt8>,
        splitsComponents: Bool,
        splitsValues: Bool
    ) -> [[String]] {
        var iterator = VCardUnfoldingIterator(bytes: bytes, start: property.valueStart, end: property.valueEnd)
        var components: [[String]] = [[]]
        var value: [UInt8] = []
        func finishValue() {
            components[components.count - 1].append(String(decoding: value, as: UTF8.self))
            value.removeAll(keepingCapacity: true)
        }
        while let byte = iterator.next() {
            switch byte {
            case VCardByte.backslash:
                guard let escaped = iterator.next() else {
                    value.append(byte)
                    break
                }
                value.append(escaped == UInt8(ascii: "n") || escaped == UInt8(ascii: "N") ? VCardByte.lineFeed : escaped)
            case VCardByte.semicolon where splitsComponents:
                finishValue()
                components.append([])
            case VCardByte.comma where splitsValues:
                finishValue()
            default:
                value.append(byte)
            }
        }
        finishValue()
        return components
    }

    /// The whole value as one string, trimmed; `nil` if that leaves nothing.
    static func plain(_ property: VCardProperty, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        nonEmpty(decode(property, in: bytes, splitsComponents: false, splitsValues: false)[0][0])
    }

    /// `text` without leading and trailing whitespace and line breaks, or `nil` if empty.
    static func nonEmpty(_ text: String) -> String? {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
              let last = text.lastIndex(where: { !$0.isWhitespace }) else { return nil }
        return String(text[first...last])
    }
}
