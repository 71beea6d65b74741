/// What `verify` folds from one log entry: its id and its kind's facts,
/// without the card, read in place.
///
/// The first pass over the log checks each entry (`EventCodec.check`:
/// the checksum and the layout, with no copy of the card); every read of
/// an entry that passed, in the same snapshot, takes these facts at their
/// offsets (`init(decoded:)`).
struct FoldedEvent {
    enum Kind {
        case created(RecordName, createdAt: Timestamp, expiresAt: Timestamp, holdsCard: Bool)
        case expired(RecordName, at: Timestamp, reason: ExpiryReason)
        case unknown
    }

    let id: EventID
    let kind: Kind

    /// The facts of `bytes`, read at their offsets (docs/FORMAT.md, the
    /// layout in `EventCodec`): the same facts `EventCodec.decode(bytes)`
    /// gives.
    ///
    /// - Precondition: `bytes` passed `EventCodec.check`.
    init(decoded bytes: UnsafeRawBufferPointer) {
        let payload = EventCodec.headerSize
        id = EventID(origin: ReplicaID(bytes: bytes[3..<19]), counter: Self.integer(bytes, at: 19))
        switch bytes[1] {
        case EventCodec.KindCode.shareCreated:
            kind = .created(
                RecordName(bytes: bytes[payload..<payload + 16]),
                createdAt: Timestamp(milliseconds: Int64(bitPattern: Self.integer(bytes, at: payload + 16))),
                expiresAt: Timestamp(milliseconds: Int64(bitPattern: Self.integer(bytes, at: payload + 24))),
                holdsCard: bytes[2] & EventCodec.redactedFlag == 0)
        case EventCodec.KindCode.shareExpired:
            guard let reason = ExpiryReason(rawValue: bytes[payload + 24]) else {
                preconditionFailure("a decoded shareExpired has a known reason")
            }
            kind = .expired(
                RecordName(bytes: bytes[payload..<payload + 16]),
                at: Timestamp(milliseconds: Int64(bitPattern: Self.integer(bytes, at: payload + 16))), reason: reason)
        default:
            kind = .unknown
        }
    }

    /// The record name of `bytes` when its kind and flag bytes say a
    /// `shareCreated` holding its card, read without the checksum: nil
    /// whenever decoding would not give such a creation, and otherwise its
    /// name if it decodes at all.
    static func cardHolder(_ bytes: UnsafeRawBufferPointer) -> RecordName? {
        let payload = EventCodec.headerSize
        guard bytes.count >= payload + 16, bytes[1] == EventCodec.KindCode.shareCreated,
              bytes[2] & EventCodec.redactedFlag == 0
        else { return nil }
        return RecordName(bytes: bytes[payload..<payload + 16])
    }

    private static func integer(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}
