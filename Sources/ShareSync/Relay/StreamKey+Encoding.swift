import SharePrimitives

extension StreamKey {
    static let encodingTag = "sharelog-stream-key"
    static let encodingVersion = "v1"

    /// The key's file form, one line of ASCII:
    /// `sharelog-stream-key v1 <hour in decimal> <chain key, 64 lowercase hex>\n`.
    /// It holds the secret, so it is a secret itself: write it to a file
    /// only its owner may read, and delete every copy once the replicas
    /// have advanced past its hour.
    package func encoded() -> SecretBytes {
        let digits = Array("0123456789abcdef".utf8)
        let prefix = Array("\(Self.encodingTag) \(Self.encodingVersion) \(hour) ".utf8)
        return SecretBytes(count: prefix.count + 2 * Self.byteCount + 1) { text in
            text.copyBytes(from: prefix)
            chainKey.withUnsafeBytes { chain in
                for (index, byte) in chain.enumerated() {
                    text[prefix.count + 2 * index] = digits[Int(byte >> 4)]
                    text[prefix.count + 2 * index + 1] = digits[Int(byte & 0x0F)]
                }
            }
            text[text.count - 1] = UInt8(ascii: "\n")
        }
    }

    /// The key in `encoded`, exactly as `encoded()` writes it: the tag, the
    /// version, the hour (decimal digits, no sign, no leading zero), the
    /// chain key (64 lowercase hexadecimal characters), each separated by
    /// one space, and a final newline. Anything else throws the
    /// `StreamKeyError` that names what is wrong. The chain key goes from
    /// `encoded` straight into a secret; the caller erases `encoded`.
    public init(encoded: [UInt8]) throws(StreamKeyError) {
        guard encoded.last == UInt8(ascii: "\n") else { throw .missingNewline }
        let line = encoded.dropLast()
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.first.map(Array.init) == Array(Self.encodingTag.utf8) else { throw .notAStreamKey }
        guard fields.count == 4 else { throw .wrongFieldCount(fields.count) }
        guard Array(fields[1]) == Array(Self.encodingVersion.utf8) else {
            throw .unsupportedVersion(String(decoding: fields[1], as: UTF8.self))
        }
        let hourText = fields[2]
        guard !hourText.isEmpty, hourText.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            hourText.count == 1 || hourText.first != UInt8(ascii: "0"),
            let hour = Int64(String(decoding: hourText, as: UTF8.self))
        else { throw .malformedHour(String(decoding: hourText, as: UTF8.self)) }
        var hex = Array(fields[3])
        defer { SecretBytes.erase(&hex) }
        guard hex.count == 2 * Self.byteCount else { throw .malformedChainKey(characters: hex.count) }
        let chainKey = try SecretBytes(count: Self.byteCount) { (bytes: UnsafeMutableRawBufferPointer) throws(StreamKeyError) in
            for index in bytes.indices {
                guard let high = Self.lowercaseHexValue(hex[2 * index]), let low = Self.lowercaseHexValue(hex[2 * index + 1]) else {
                    throw .malformedChainKey(characters: hex.count)
                }
                bytes[index] = high << 4 | low
            }
        }
        self.init(hour: hour, chainKey: chainKey)
    }

    private static func lowercaseHexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
