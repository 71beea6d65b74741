/// A share ended: its time ran out, or its owner revoked it.
public struct ShareExpired: Hashable, Sendable {
    public let recordName: RecordName
    public let at: Timestamp
    public let reason: ExpiryReason

    public init(recordName: RecordName, at: Timestamp, reason: ExpiryReason) {
        self.recordName = recordName
        self.at = at
        self.reason = reason
    }
}
