/// Text a stranger chose (a card's fields, a peer's `error` message), made
/// safe for one line of a terminal or a log: a line break in it cannot
/// start a line that looks like the program's own, an escape sequence
/// cannot drive the reader's terminal, and a bidirectional override or a
/// zero-width character cannot change what a reader sees. Printable text,
/// other scripts and emoji included, is kept as it is.
public enum EscapedText {
    /// `scalar` as it is printed: `\n`, `\r` and `\t` for line breaks and
    /// tabs, `\\` for a backslash, `\"` for a double quote when `quoting`
    /// (text shown between quotes), and `\u{XXXX}` for every other control,
    /// format or separator character (escape, DEL, C1 controls,
    /// bidirectional overrides, zero-width characters, line and paragraph
    /// separators), a surrogate, a private-use or an unassigned one.
    public static func escaped(_ scalar: Unicode.Scalar, quoting: Bool = false) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\\": return "\\\\"
        case "\"" where quoting: return "\\\""
        default:
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                return String(scalar)
            }
        }
    }

    /// `text` with each scalar `escaped(_:quoting:)`. Cost: one pass.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars { out += escaped(scalar) }
        return out
    }
}
