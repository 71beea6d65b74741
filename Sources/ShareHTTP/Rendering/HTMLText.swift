/// Text made safe for HTML: every character that could end a text node or
/// an attribute value (`&`, `<`, `>`, `"`, `'`) becomes a character
/// reference. A card is its uploader's input: everything from it passes
/// through here before it reaches a page.
public enum HTMLText {
    /// `text` escaped for a text node or a quoted attribute value.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            // Controls other than tab and newline have no business on a page.
            case "\u{0}"..."\u{8}", "\u{B}"..."\u{1F}", "\u{7F}": escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
