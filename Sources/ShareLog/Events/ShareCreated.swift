/// A share was created with a vCard that lives until `expiresAt`.
public struct ShareCreated: Hashable, Sendable {
    public let recordName: RecordName
    /// The vCard, or nil once compaction has redacted it.
    public let vCard: [UInt8]?
    public let createdAt: Timestamp
    public let expiresAt: Timestamp

    public init(recordName: RecordName, vCard: [UInt8]?, createdAt: Timestamp, expiresAt: Timestamp) {
        self.recordName = recordName
        self.vCard = vCard
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// The same event with its personal data removed.
    var redacted: ShareCreated {
        ShareCreated(recordName: recordName, vCard: nil, createdAt: createdAt, expiresAt: expiresAt)
    }
}
