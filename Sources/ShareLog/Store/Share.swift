/// A share as the clip sees it.
public struct Share: Hashable, Sendable {
    public let recordName: RecordName
    public let vCard: [UInt8]
    public let createdAt: Timestamp
    public let expiresAt: Timestamp
}
