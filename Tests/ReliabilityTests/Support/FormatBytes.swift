import Foundation

/// The bytes docs/FORMAT.md prescribes for a hand-written expectation,
/// assembled from the document's tables with no ShareLog code: what
/// `mdb_dump` must show, and the valid bytes that refusal tests damage.
enum FormatBytes {
    /// A big-endian integer of `T`'s width.
    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// The 16 bytes of an identifier given as UUID text.
    static func identifier(_ text: String) -> [UInt8] {
        guard let uuid = UUID(uuidString: text) else { preconditionFailure("\(text) is not a UUID") }
        return withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    /// A `log` value: the event table, then the CRC-32 of everything before it.
    static func event(_ event: ReaderOutput.Event) -> [UInt8] {
        let payload: [UInt8]
        switch event.kind {
        case 1:
            payload = identifier(event.recordName!) + bigEndian(event.createdAt!) + bigEndian(event.expiresAt!)
                + Array((event.vCard ?? "").utf8)
        case 2:
            payload = identifier(event.recordName!) + bigEndian(event.at!) + [reasonCode(event.reason!)]
        default:
            payload = hex(event.payload!)
        }
        let body = [UInt8(event.version), UInt8(event.kind), UInt8(event.flags)] + identifier(event.origin)
            + bigEndian(event.originSequence) + bigEndian(UInt32(payload.count)) + payload
        return sealed(body)
    }

    /// `body` followed by its CRC-32, as the last 4 bytes of an event are.
    static func sealed(_ body: [UInt8]) -> [UInt8] { body + bigEndian(crc32(body)) }

    /// A `shares` value (format 2): version, flags, then the creation,
    /// revocation and TTL-end parts, each only when present.
    static func shareState(_ share: ReaderOutput.Share) -> [UInt8] {
        let flags = (share.creation != nil ? 1 : 0) | (share.revocation != nil ? 2 : 0) | (share.ttlEnd != nil ? 4 : 0)
        var bytes: [UInt8] = [UInt8(share.version), UInt8(flags)]
        if let creation = share.creation {
            bytes += bigEndian(creation.createdAt) + bigEndian(creation.expiresAt) + identifier(creation.origin)
                + bigEndian(creation.originSequence) + bigEndian(creation.position)
        }
        for end in [share.revocation, share.ttlEnd].compactMap({ $0 }) {
            bytes += shareEnd(end)
        }
        return bytes
    }

    /// A share state's revocation or TTL-end part: at, origin, origin counter.
    static func shareEnd(_ end: ReaderOutput.End) -> [UInt8] {
        bigEndian(end.at) + identifier(end.origin) + bigEndian(end.originSequence)
    }

    /// An `expiry` key: expiresAt clamped at 0, then the record name.
    static func expiryKey(_ entry: ReaderOutput.ExpiryEntry) -> [UInt8] {
        bigEndian(entry.clampedExpiresAt) + identifier(entry.recordName)
    }

    /// An `expiry` value: the creation's log position, then its expiresAt.
    static func expiryValue(_ entry: ReaderOutput.ExpiryEntry) -> [UInt8] {
        bigEndian(entry.position) + bigEndian(entry.expiresAt)
    }

    /// zlib's CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, initial
    /// value and final XOR 0xFFFFFFFF), bit by bit as FORMAT.md states it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// Lowercase or uppercase hex digits, two per byte.
    static func hex(_ text: some StringProtocol) -> [UInt8] {
        let digits = Array(text.utf8)
        precondition(digits.count.isMultiple(of: 2), "\(text) has an odd number of hex digits")
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    /// Two lowercase hex digits per byte.
    static func hexText(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private static func reasonCode(_ reason: String) -> UInt8 {
        switch reason {
        case "ttl": 1
        case "revoked": 2
        default: preconditionFailure("\(reason) is not an expiry reason")
        }
    }
}
