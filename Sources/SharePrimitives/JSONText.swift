/// JSON string literals (RFC 8259 §7), written by hand so a gateway record's
/// JSON is one pass over the card, and a log line one pass over its text,
/// with no encoder: quotes, backslashes and controls escaped, and `<`, `>`,
/// `&`, U+2028 and U+2029 as `\u` escapes so the JSON is inert if some
/// client ever puts it in a page or a script.
package enum JSONText {
    /// `text` as a quoted JSON string.
    package static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0}"..."\u{1F}", "<", ">", "&", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
