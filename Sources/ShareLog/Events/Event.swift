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

/// Why a share expired.
public enum ExpiryReason: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// Its time to live ran out (a sweep noticed).
    case ttl = 1
    /// Its owner ended it early.
    case revoked = 2

    public var description: String {
        switch self {
        case .ttl: "ttl"
        case .revoked: "revoked"
        }
    }
}
