import ShareClip

/// The checks every event from another replica passes before anything of
/// its batch is written: what `create` would refuse locally, a peer cannot
/// store either, so the privacy limit on a card's life holds for synced
/// shares too.
///
/// Pure: it looks at the event alone. The check that needs the store (an
/// event claiming this replica's own origin) is `ShareStore`'s, inside the
/// write transaction.
enum ForeignEventValidator {
    /// The largest encoded event accepted: a card at the vCard limit
    /// (1 MiB) and the event's fixed fields, with room to spare for a newer
    /// kind's few extra fields.
    static let maximumEncodedBytes = VCardValidator.maximumByteCount + 4096

    /// - Throws: `ShareLogError.invalidEvent` naming the event and the rule
    ///   it breaks.
    static func validate(_ event: Event, encodedBytes: Int) throws(ShareLogError) {
        guard encodedBytes <= maximumEncodedBytes else {
            throw .invalidEvent(event.id, reason: .tooLarge(encodedBytes: encodedBytes, limit: maximumEncodedBytes))
        }
        if event.id.isTTLEnd {
            guard case .shareExpired(let expired) = event.kind, expired.reason == .ttl,
                  expired.recordName.uuid == event.id.origin.uuid
            else {
                throw .invalidEvent(event.id, reason: .reservedCounter)
            }
        }
        guard case .shareCreated(let created) = event.kind else { return }
        let lifetime = Int128(created.expiresAt.milliseconds) - Int128(created.createdAt.milliseconds)
        let allowed = ShareStore.ttlRange
        guard lifetime >= Int128(milliseconds(allowed.lowerBound)), lifetime <= Int128(milliseconds(allowed.upperBound)) else {
            throw .invalidEvent(event.id, reason: .lifetimeOutOfRange(created.recordName, seconds: Int64(lifetime / 1000)))
        }
        guard let vCard = created.vCard else { return }
        do { try VCardValidator.validate(vCard) } catch {
            throw .invalidEvent(event.id, reason: .invalidCard(created.recordName, error))
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000
    }
}
