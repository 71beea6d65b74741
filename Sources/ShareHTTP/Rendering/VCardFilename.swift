/// The `Content-Disposition` of a card download (RFC 6266): a plain ASCII
/// `filename` every client understands, and `filename*` (RFC 8187) with
/// the card's name in UTF-8, sanitized.
///
/// Sanitizing keeps letters, digits, spaces and `-_.,'()&` of the FN,
/// drops everything else (path separators, controls, quotes, dots at the
/// start), squeezes spaces and cuts it to 64 characters. A name that
/// leaves nothing becomes `contact`.
public enum VCardFilename {
    /// The field value for a card whose FN is `name` (nil: none).
    public static func contentDisposition(name: String?) -> String {
        let base = sanitized(name ?? "")
        let ascii = String(base.unicodeScalars.filter { $0.isASCII })
            .split(separator: " ").joined(separator: " ")
        // Dots again: dropping non-ASCII can leave one in front (`é.bashrc`).
        let dotless = ascii.drop { $0 == "." || $0 == " " }
        let plain = dotless.isEmpty ? "contact" : String(dotless)
        return "attachment; filename=\"\(plain).vcf\"; filename*=UTF-8''\(percentEncoded(base + ".vcf"))"
    }

    /// The FN reduced to characters safe in a file name on any system.
    static func sanitized(_ name: String) -> String {
        var kept = ""
        for character in name {
            if character.isLetter || character.isNumber || " -_.,'()&".contains(character) { kept.append(character) } else if character.isWhitespace { kept.append(" ") }
        }
        let words = kept.split(separator: " ").joined(separator: " ")
        let trimmed = words.drop { $0 == "." || $0 == " " }
        let cut = String(trimmed.prefix(64)).trimmingWhitespace()
        return cut.isEmpty ? "contact" : String(cut)
    }

    /// RFC 8187 `value-chars`: attr-chars as they are, every other byte as %XX.
    private static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!#$&+-.^_`|~".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
