/// What an acknowledged operation returned, as its writer printed it.
public struct CrashResult: Codable, Hashable, Sendable {
    /// A create's new record name.
    public var recordName: String?
    /// A create's expiry time, in milliseconds.
    public var expiresAt: Int64?
    /// A refused revoke: the share had already ended at this time…
    public var endedAt: Int64?
    /// …for this reason (`ttl` or `revoked`).
    public var endedBecause: String?
    /// A sweep's expired shares or a compaction's redacted entries.
    public var count: Int?

    public init(recordName: String? = nil, expiresAt: Int64? = nil, endedAt: Int64? = nil,
                endedBecause: String? = nil, count: Int? = nil) {
        self.recordName = recordName
        self.expiresAt = expiresAt
        self.endedAt = endedAt
        self.endedBecause = endedBecause
        self.count = count
    }
}
