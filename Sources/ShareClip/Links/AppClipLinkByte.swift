/// ASCII byte constants and character classes used to read links (RFC 3986).
///
/// A namespace rather than `UInt8` extensions so it cannot collide with other byte helpers
/// in the module.
enum AppClipLinkByte {
    static let percent = UInt8(ascii: "%")
    static let slash = UInt8(ascii: "/")
    static let question = UInt8(ascii: "?")
    static let hash = UInt8(ascii: "#")
    static let colon = UInt8(ascii: ":")
    static let at = UInt8(ascii: "@")
    static let closingBracket = UInt8(ascii: "]")
    static let ampersand = UInt8(ascii: "&")
    static let equals = UInt8(ascii: "=")
    static let hyphen = UInt8(ascii: "-")

    static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte)
    }

    /// The value of a hex digit in either case, or `nil`.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        hexValue(byte) != nil
    }

    /// RFC 3986 §3.1: `ALPHA / DIGIT / "+" / "-" / "."`.
    static func isSchemeCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == hyphen || byte == UInt8(ascii: ".")
    }

    /// RFC 3986 unreserved, gen-delims and sub-delims characters (`%` is checked separately).
    static func isURLCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || urlPunctuation.contains(byte)
    }

    private static let urlPunctuation: Set<UInt8> = Set("-._~:/?#[]@!$&'()*+,;=".utf8)
}
