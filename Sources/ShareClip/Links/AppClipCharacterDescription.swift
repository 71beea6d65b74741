/// Names a character for an error message so that a reader can find it in what they typed,
/// including characters they cannot see (spaces, tabs, line breaks, control characters).
enum AppClipCharacterDescription {
    /// `"x"` for a visible character; `the invisible character U+0020` for whitespace or a control character.
    static func describe(_ character: Character) -> String {
        let invisible = character.isWhitespace
            || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
        guard invisible else { return "\"\(character)\"" }
        let codes = character.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "the invisible character " + codes.joined(separator: " ")
    }
}
