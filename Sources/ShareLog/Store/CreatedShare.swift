/// A share just created.
public struct CreatedShare: Hashable, Sendable {
    public let recordName: RecordName
    public let createdAt: Timestamp
    public let expiresAt: Timestamp
    /// The App Clip link to put in the QR code.
    public let link: String
}
