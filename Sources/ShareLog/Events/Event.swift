/// One entry of the log: something that happened to a share.
public struct Event: Hashable, Sendable {
    public let id: EventID
    public let kind: Kind

    public init(id: EventID, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    public enum Kind: Hashable, Sendable {
        case shareCreated(ShareCreated)
        case shareExpired(ShareExpired)
        /// A kind from a newer version: kept and relayed byte for byte,
        /// flags included, and ignored by projections.
        case unknown(code: UInt8, flags: UInt8, payload: [UInt8])
    }

    /// The share the event is about, when its kind is known.
    public var recordName: RecordName? {
        switch kind {
        case .shareCreated(let created): created.recordName
        case .shareExpired(let expired): expired.recordName
        case .unknown: nil
        }
    }
}
