/// What `verify` folds from one log entry: its id and its kind's facts,
/// without the card.
///
/// The first pass over the log decodes each entry in full (`EventCodec`,
/// checksum and all); the later passes read the same entries, in the same
/// snapshot, so they read these facts in place (`init(decoded:)`), with no
/// checksum and no copy of the card.
struct FoldedEvent {
    enum Kind {
        case created(RecordName, createdAt: Timestamp, expiresAt: Timestamp, holdsCard: Bool)
        case expired(RecordName, at: Timestamp, reason: ExpiryReason)
        case unknown
    }

    let id: EventID
    let kind: Kind

    init(_ event: Event) {
        id = event.id
        switch event.kind {
        case .shareCreated(let created):
            kind = .created(created.recordName, createdAt: created.createdAt, expiresAt: created.expiresAt, holdsCard: created.vCard != nil)
        case .shareExpired(let expired):
            kind = .expired(expired.recordName, at: expired.at, reason: expired.reason)
        case .unknown:
            kind = .unknown
        }
    }

    /// The facts of `bytes`, read at their offsets (docs/FORMAT.md, the
    /// layout in `EventCodec`): the same as `init(EventCodec.decode(bytes))`.
    ///
    /// - Precondition: `bytes` decoded without error.
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
