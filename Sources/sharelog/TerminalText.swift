/// Text from a card, made safe for a line of the CLI's text output: a
/// sharer chose it, so a line break in a name must not print a line that
/// looks like the program's own (`status:   expired`), and an escape
/// sequence must not drive the reader's terminal.
enum TerminalText {
    /// `text` with line breaks and tabs as `\n`, `\r`, `\t`, a backslash as
    /// `\\`, and every other control or format character (escape, DEL, C1
    /// controls, bidirectional overrides, zero-width characters) as
    /// `\u{XXXX}`. Printable text, other scripts and emoji included, is
    /// kept as it is.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\\": out += "\\\\"
            default:
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse:
                    out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                default:
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
