/// The public part of a bearer token: 8 bytes, the key of its entry in the
/// store's `tokens` database (docs/FORMAT.md "Tokens"). Not a secret: it
/// names the token in the token's text and in logs, as a user name does.
public struct TokenID: Hashable, Sendable, CustomStringConvertible {
    /// Its bytes, as the key of `tokens` holds them.
    public let bytes: [UInt8]

    /// Its length in bytes.
    public static let size = 8

    /// Nil unless `bytes` holds exactly 8 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.size else { return nil }
        self.bytes = Array(bytes)
    }

    /// Parses 16 lowercase hexadecimal digits, the form `description`
    /// gives; nil for anything else (upper case included).
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * Self.size else { return nil }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.value(of: digits[pair]), let low = Self.value(of: digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// 16 lowercase hexadecimal digits.
    public var description: String { Key.hex(bytes) }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
