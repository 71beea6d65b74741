import SharePrimitives

/// The binary encoding of an `Event`, shared by the log and the wire.
///
/// Layout, version 1 (integers big-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | format version, 1 |
/// | 1 | 1 | kind: 1 shareCreated, 2 shareExpired, others unknown |
/// | 2 | 1 | flags: bit 0 = redacted (shareCreated without its vCard); no others for known kinds; kept as they are for unknown ones |
/// | 3 | 16 | origin replica id |
/// | 19 | 8 | origin counter |
/// | 27 | 4 | payload length n |
/// | 31 | n | payload |
/// | 31+n | 4 | CRC-32 of bytes 0..<31+n |
///
/// Payloads: shareCreated = record name (16), createdAt ms (8), expiresAt
/// ms (8), then the vCard (the rest; empty when redacted). shareExpired =
/// record name (16), at ms (8), reason (1). An unknown kind's payload is
/// kept as it is.
public enum EventCodec {
    public static let formatVersion: UInt8 = 1
    static let headerSize = 31
    static let trailerSize = 4

    enum KindCode {
        static let shareCreated: UInt8 = 1
        static let shareExpired: UInt8 = 2
    }

    static let redactedFlag: UInt8 = 1

    /// The encoded form of `event`.
    public static func encode(_ event: Event) -> [UInt8] {
        let size = encodedSize(of: event)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            encode(event, into: UnsafeMutableRawBufferPointer(buffer))
            count = size
        }
    }

    /// The size of `event`'s encoded form, in bytes.
    static func encodedSize(of event: Event) -> Int {
        headerSize + shape(of: event.kind).payloadSize + trailerSize
    }

    /// Writes the encoded form of `event` into `buffer`, byte for byte what
    /// `encode(_:)` returns, allocating nothing: how the log writes an
    /// event straight into the space LMDB reserves for it.
    ///
    /// - Precondition: `buffer.count == encodedSize(of: event)`.
    static func encode(_ event: Event, into buffer: UnsafeMutableRawBufferPointer) {
        let (code, flags, payloadSize) = shape(of: event.kind)
        precondition(buffer.count == headerSize + payloadSize + trailerSize, "the buffer is the event's encoded size")
        var writer = BufferWriter(buffer)
        writer.write(formatVersion)
        writer.write(code)
        writer.write(flags)
        writer.write(event.id.origin)
        writer.write(event.id.counter)
        writer.write(UInt32(payloadSize))
        switch event.kind {
        case .shareCreated(let created):
            writer.write(created.recordName)
            writer.write(created.createdAt.milliseconds)
            writer.write(created.expiresAt.milliseconds)
            if let vCard = created.vCard { writer.write(vCard) }
        case .shareExpired(let expired):
            writer.write(expired.recordName)
            writer.write(expired.at.milliseconds)
            writer.write(expired.reason.rawValue)
        case .unknown(_, _, let payload):
            writer.write(payload)
        }
        writer.write(CRC32.of(writer.written))
    }

    private static func shape(of kind: Event.Kind) -> (code: UInt8, flags: UInt8, payloadSize: Int) {
        switch kind {
        case .shareCreated(let created):
            (KindCode.shareCreated, created.vCard == nil ? redactedFlag : 0, 32 + (created.vCard?.count ?? 0))
        case .shareExpired:
            (KindCode.shareExpired, 0, 25)
        case .unknown(let code, let flags, let payload):
            (code, flags, payload.count)
        }
    }

    /// Decodes one event that fills `bytes` exactly.
    ///
    /// - Throws: `EventDecodingError` saying what is wrong; never traps on
    ///   any input.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> Event {
        let payload = try check(bytes)
        let id = EventID(
            origin: ReplicaID(bytes: bytes[3..<19]),
            counter: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 19, as: UInt64.self)))
        return Event(id: id, kind: kind(code: bytes[1], flags: bytes[2], checkedPayload: payload))
    }

    /// Decodes one event from an array.
    public static func decode(_ bytes: [UInt8]) throws(EventDecodingError) -> Event {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(EventDecodingError) in try decode(raw) } }
        return try result.get()
    }

    /// Checks everything `decode(_:)` checks, throwing the same error,
    /// without building the event: no copy of the card. How `verify`
    /// checks a log entry it reads the facts of in place.
    ///
    /// - Returns: the payload.
    @discardableResult
    static func check(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> UnsafeRawBufferPointer {
        guard bytes.count >= headerSize + trailerSize else { throw .truncated(bytes.count) }
        guard bytes[0] == formatVersion else { throw .unsupportedVersion(bytes[0]) }
        let code = bytes[1], flags = bytes[2]
        let payloadSize = Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 27, as: UInt32.self)))
        guard payloadSize == bytes.count - headerSize - trailerSize else {
            throw .lengthMismatch(declared: payloadSize, actual: bytes.count - headerSize - trailerSize)
        }
        let covered = UnsafeRawBufferPointer(rebasing: bytes[0..<headerSize + payloadSize])
        let stored = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: headerSize + payloadSize, as: UInt32.self))
        guard CRC32.of(covered) == stored else { throw .checksumMismatch }
        // Format 1 defines one flag for shareCreated and none for
        // shareExpired; another bit would be lost on re-encoding. A kind
        // from a newer version keeps its flags, to be relayed unchanged.
        let definedFlags: UInt8? = switch code {
        case KindCode.shareCreated: redactedFlag
        case KindCode.shareExpired: 0
        default: nil
        }
        if let definedFlags, flags & ~definedFlags != 0 { throw .undefinedFlags(kind: code, flags: flags) }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[headerSize..<headerSize + payloadSize])
        switch code {
        case KindCode.shareCreated:
            guard payload.count >= 32 else { throw .malformedPayload("shareCreated needs 32 bytes before the vCard") }
            guard flags & redactedFlag == 0 || payload.count == 32 else {
                throw .malformedPayload("a redacted shareCreated carries a vCard")
            }
        case KindCode.shareExpired:
            guard payload.count == 25 else { throw .malformedPayload("shareExpired is 25 bytes") }
            guard ExpiryReason(rawValue: payload[24]) != nil else {
                throw .malformedPayload("unknown expiry reason \(payload[24])")
            }
        default:
            break
        }
        return payload
    }

    /// What a log entry holds of a share's card.
    enum CardLookup {
        /// A `shareCreated` with its card: the card's bytes, valid as long
        /// as the entry's.
        case card(UnsafeRawBufferPointer)
        /// A `shareCreated` whose card was redacted.
        case redacted
        /// Another kind of event.
        case notACreation
    }

    /// The card of the `shareCreated` `bytes` encodes, checked as
    /// `decode(_:)` checks it but without building the event: how a fetch
    /// copies a card once, straight out of the log entry.
    ///
    /// - Throws: what `decode(_:)` throws for `bytes`.
    static func card(in bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> CardLookup {
        let payload = try check(bytes)
        guard bytes[1] == KindCode.shareCreated else { return .notACreation }
        if bytes[2] & redactedFlag != 0 { return .redacted }
        return .card(UnsafeRawBufferPointer(rebasing: payload[32...]))
    }

    /// The kind of an event whose payload `check(_:)` accepted.
    private static func kind(code: UInt8, flags: UInt8, checkedPayload payload: UnsafeRawBufferPointer) -> Event.Kind {
        var reader = ByteReader(payload)
        switch code {
        case KindCode.shareCreated:
            let name = RecordName(bytes: reader.readSlice(16)!)
            let createdAt = Timestamp(milliseconds: reader.read(Int64.self)!)
            let expiresAt = Timestamp(milliseconds: reader.read(Int64.self)!)
            let vCard = flags & redactedFlag != 0 ? nil : reader.readBytes(reader.remaining)!
            return .shareCreated(ShareCreated(recordName: name, vCard: vCard, createdAt: createdAt, expiresAt: expiresAt))
        case KindCode.shareExpired:
            let name = RecordName(bytes: reader.readSlice(16)!)
            let at = Timestamp(milliseconds: reader.read(Int64.self)!)
            return .shareExpired(ShareExpired(recordName: name, at: at, reason: ExpiryReason(rawValue: reader.read(UInt8.self)!)!))
        default:
            return .unknown(code: code, flags: flags, payload: reader.readBytes(reader.remaining)!)
        }
    }

    /// Whether `bytes`, a logged event, is a `shareCreated` of `name` that
    /// still holds its card: the kind, flag and record-name bytes alone,
    /// without the checksum (the projection asks this of entries it logged;
    /// `verify` and reads check the whole entry). Nil for any other event.
    static func creationHoldsCard(_ bytes: UnsafeRawBufferPointer, of name: RecordName) -> Bool? {
        let nameOffset = headerSize
        guard bytes.count >= nameOffset + 16, bytes[1] == KindCode.shareCreated else { return nil }
        // Two words each, rather than a generic elementsEqual over a slice:
        // a sweep asks this once a share.
        let stored = (
            bytes.loadUnaligned(fromByteOffset: nameOffset, as: UInt64.self),
            bytes.loadUnaligned(fromByteOffset: nameOffset + 8, as: UInt64.self))
        let expected = withUnsafeBytes(of: name.uuid.uuid) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        guard stored == expected else { return nil }
        return bytes[2] & redactedFlag == 0
    }
}
