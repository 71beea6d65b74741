import CZlib
import Foundation
import ShareLog

/// An event reader written from docs/FORMAT.md alone, as plainly as possible,
/// that `CodecFuzzTarget` holds `EventCodec.decode` against and that
/// `ConvergenceTests`' `StoreDecoder` reads the log with.
///
/// It shares no code with `EventCodec`: fields are read byte by byte at the
/// offsets the format table gives, the checksum is zlib's `crc32` called here,
/// and the expiry reasons are spelled out. Rules are checked in the order a
/// reader meets them (size, version, length, checksum, flags, payload), so the
/// first broken rule is the refusal.
public enum ReferenceEventReader {
    /// Which rule of docs/FORMAT.md the bytes break.
    public enum Refusal: Error, Hashable {
        /// Fewer than the 35 bytes of header and checksum.
        case tooShort
        /// Byte 0 is not format version 1.
        case version
        /// The value is not 35 + n bytes for the payload length n it declares.
        case length
        /// The last four bytes are not the CRC-32 of the rest.
        case checksum
        /// A known kind sets a flag bit format 1 does not define.
        case flags
        /// A known kind's payload does not have its documented shape.
        case payload
    }

    /// The event `bytes` hold, or the rule they break.
    public static func read(_ bytes: [UInt8]) -> Result<Event, Refusal> {
        guard bytes.count >= 35 else { return .failure(.tooShort) }
        guard bytes[0] == 1 else { return .failure(.version) }
        let kind = bytes[1]
        let flags = bytes[2]
        let origin = ReplicaID(uuid: uuid(bytes, at: 3))
        let counter = bigEndian(bytes, at: 19, size: 8)
        let payloadSize = Int(bigEndian(bytes, at: 27, size: 4))
        guard bytes.count == 35 + payloadSize else { return .failure(.length) }
        let checksum = bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32(31 + payloadSize)) }
        guard UInt64(checksum) == bigEndian(bytes, at: 31 + payloadSize, size: 4) else { return .failure(.checksum) }
        let payload = Array(bytes[31..<31 + payloadSize])
        let id = EventID(origin: origin, counter: counter)
        switch kind {
        case 1:
            guard flags == 0 || flags == 1 else { return .failure(.flags) }
            guard payload.count >= 32 else { return .failure(.payload) }
            let card = Array(payload[32...])
            let redacted = flags == 1
            guard !redacted || card.isEmpty else { return .failure(.payload) }
            return .success(Event(id: id, kind: .shareCreated(ShareCreated(
                recordName: RecordName(uuid: uuid(payload, at: 0)), vCard: redacted ? nil : card,
                createdAt: time(payload, at: 16), expiresAt: time(payload, at: 24)))))
        case 2:
            guard flags == 0 else { return .failure(.flags) }
            guard payload.count == 25 else { return .failure(.payload) }
            let reason: ExpiryReason
            switch payload[24] {
            case 1: reason = .ttl
            case 2: reason = .revoked
            default: return .failure(.payload)
            }
            return .success(Event(id: id, kind: .shareExpired(ShareExpired(
                recordName: RecordName(uuid: uuid(payload, at: 0)), at: time(payload, at: 16), reason: reason))))
        default:
            return .success(Event(id: id, kind: .unknown(code: kind, flags: flags, payload: payload)))
        }
    }

    /// The unsigned big-endian integer of `size` bytes at `offset`.
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        bytes[offset..<offset + size].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The signed milliseconds at `offset`.
    private static func time(_ bytes: [UInt8], at offset: Int) -> Timestamp {
        Timestamp(milliseconds: Int64(bitPattern: bigEndian(bytes, at: offset, size: 8)))
    }

    /// The 16-byte identifier at `offset`, in the usual UUID byte order.
    private static func uuid(_ bytes: [UInt8], at offset: Int) -> UUID {
        let b = Array(bytes[offset..<offset + 16])
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
