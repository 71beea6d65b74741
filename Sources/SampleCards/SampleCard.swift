import Foundation

/// Deterministic business cards for demos, benchmarks and tests: vCard 3.0
/// as Apple's Contacts exports it, optionally with a folded base64 photo.
public enum SampleCard {
    /// Card number `index`. With `photoBytes`, it carries a JPEG-typed photo
    /// of that many pseudo-random bytes (about 4/3 as much base64 text).
    /// The same arguments always give the same bytes.
    public static func make(index: Int, photoBytes: Int? = nil) -> [UInt8] {
        var lines = [
            "BEGIN:VCARD",
            "VERSION:3.0",
            "PRODID:-//Apple Inc.//iPhone OS 18.0//EN",
            "N:Sample\(index);Person;;;",
            "FN:Person Sample\(index)",
            "ORG:Example Corp \(index % 97);Engineering",
            "TITLE:Engineer \(index % 13)",
            "item1.EMAIL;type=INTERNET;type=pref:person\(index)@example.com",
            "item1.X-ABLabel:_$!<Other>!$_",
            "TEL;type=CELL;type=VOICE;type=pref:+1 555 \(String(format: "%07d", index % 10_000_000))",
            "NOTE:Sample card \(index) made by ShareLog for demos and benchmarks.",
        ]
        if let photoBytes {
            let photo = pseudoRandomBytes(count: photoBytes, seed: UInt64(index) &+ 0x5EED)
            lines.append(folded("PHOTO;ENCODING=b;TYPE=JPEG:" + Data(photo).base64EncodedString()))
        }
        lines.append("END:VCARD")
        return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// Folds a content line at 75 octets with CRLF and one space (RFC 6350 §3.2).
    static func folded(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line }
        var chunks = [String(decoding: bytes[0..<75], as: UTF8.self)]
        var index = 75
        while index < bytes.count {
            chunks.append(" " + String(decoding: bytes[index..<min(index + 74, bytes.count)], as: UTF8.self))
            index += 74
        }
        return chunks.joined(separator: "\r\n")
    }

    /// SplitMix64 output, so cards are reproducible without a random source.
    public static func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
            withUnsafeBytes(of: mixed) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
