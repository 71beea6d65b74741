/// What the `shares` projection knows about one record name.
///
/// Invariants: at least one of `creation` and `expiry` is set; `vCard` is
/// set only while the share is live (created, not expired). A state with
/// only `expiry` is a tombstone that arrived before its creation.
struct ShareState: Equatable, Sendable {
    struct Creation: Equatable, Sendable {
        let createdAt: Timestamp
        let expiresAt: Timestamp
        let event: EventID
    }

    struct Expiry: Equatable, Sendable {
        let at: Timestamp
        let reason: ExpiryReason
        let event: EventID

        /// The deterministic winner between two expirations: the earlier
        /// time, then the smaller event id.
        func precedes(_ other: Expiry) -> Bool {
            (at, event) < (other.at, other.event)
        }
    }

    var creation: Creation?
    var expiry: Expiry?
    var vCard: [UInt8]?

    var isLive: Bool { creation != nil && expiry == nil }
}

extension ShareState {
    static let formatVersion: UInt8 = 1
    /// version, flags, creation (40), expiry (33).
    static let headerSize = 75

    /// Fixed layout, integers big-endian: version (1); flags (1: bit 0
    /// creation present, bit 1 expiry present, bit 2 vCard present);
    /// createdAt (8), expiresAt (8), creating event origin (16) and sequence
    /// (8); expired at (8), reason (1), expiring event origin (16) and
    /// sequence (8); then the vCard. Absent parts are zeros.
    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: ShareState.headerSize + (vCard?.count ?? 0))
        writer.write(ShareState.formatVersion)
        let flags: UInt8 = (creation != nil ? 1 : 0) | (expiry != nil ? 2 : 0) | (vCard != nil ? 4 : 0)
        writer.write(flags)
        writer.write(creation?.createdAt.milliseconds ?? 0)
        writer.write(creation?.expiresAt.milliseconds ?? 0)
        writer.write(creation?.event.origin.bytes ?? [UInt8](repeating: 0, count: 16))
        writer.write(creation?.event.counter ?? 0)
        writer.write(expiry?.at.milliseconds ?? 0)
        writer.write(expiry?.reason.rawValue ?? 0)
        writer.write(expiry?.event.origin.bytes ?? [UInt8](repeating: 0, count: 16))
        writer.write(expiry?.event.counter ?? 0)
        if let vCard { writer.write(vCard) }
        return writer.bytes
    }

    /// Decodes a stored state.
    ///
    /// - Parameter includingVCard: false skips copying the vCard.
    /// - Returns: nil when the bytes are not a valid state.
    init?(_ bytes: UnsafeRawBufferPointer, includingVCard: Bool = true) {
        var reader = ByteReader(bytes)
        guard reader.read(UInt8.self) == ShareState.formatVersion, let flags = reader.read(UInt8.self),
              let createdAt = reader.read(Int64.self), let expiresAt = reader.read(Int64.self),
              let creator = reader.readSlice(16), let creatorSequence = reader.read(UInt64.self),
              let expiredAt = reader.read(Int64.self), let reasonCode = reader.read(UInt8.self),
              let expirer = reader.readSlice(16), let expirerSequence = reader.read(UInt64.self)
        else { return nil }
        if flags & 1 != 0 {
            creation = Creation(
                createdAt: Timestamp(milliseconds: createdAt), expiresAt: Timestamp(milliseconds: expiresAt),
                event: EventID(origin: ReplicaID(bytes: creator), counter: creatorSequence))
        }
        if flags & 2 != 0 {
            guard let reason = ExpiryReason(rawValue: reasonCode) else { return nil }
            expiry = Expiry(
                at: Timestamp(milliseconds: expiredAt), reason: reason,
                event: EventID(origin: ReplicaID(bytes: expirer), counter: expirerSequence))
        }
        guard creation != nil || expiry != nil else { return nil }
        if flags & 4 != 0 {
            guard creation != nil, expiry == nil else { return nil }
            if includingVCard { vCard = reader.readBytes(reader.remaining) }
        } else if reader.remaining != 0 {
            return nil
        }
    }
}
