import ShareLog

/// One share of a `Format1Store`: what the writer logs for it, and what it
/// must answer once the store is upgraded.
public struct Format1Share: Sendable {
    /// How the share's history ends, as of `Format1Store.now`.
    public enum Fate: Sendable, Equatable {
        /// Created, and still before its `expiresAt`.
        case live
        /// Created, past its `expiresAt`, and never swept: it reads as
        /// expired by TTL, and format 1 kept its card in `shares`.
        case due
        /// Ended by a sweep's `shareExpired(ttl)` at its `expiresAt`.
        case swept
        /// Ended by a `shareExpired(revoked)` at this time, before its `expiresAt`.
        case revoked(at: Int64)
    }

    public let name: RecordName
    public let card: [UInt8]
    /// Milliseconds since 1970.
    public let createdAt: Int64
    public let expiresAt: Int64
    public let fate: Fate
    /// Whether a compaction rewrote its `shareCreated` without the card.
    public let compacted: Bool
    /// The log position of its `shareCreated`.
    public internal(set) var creationPosition: UInt64 = 0
    /// The log position of its `shareExpired`, for a swept or revoked share.
    public internal(set) var endPosition: UInt64?

    /// Whether a `shareExpired` was logged for it.
    public var ended: Bool { fate == .swept || revokedAt != nil }

    public var revokedAt: Int64? {
        if case .revoked(let at) = fate { return at }
        return nil
    }

    /// What `fetch` must answer for it at `Format1Store.now`, in words; the
    /// same words as `describe(_:)` gives for a correct answer.
    public var expectedAnswer: String {
        switch fate {
        case .live: "live, card of \(card.count) bytes, created \(createdAt), expires \(expiresAt)"
        case .due, .swept: "expired at \(expiresAt) (ttl)"
        case .revoked(let at): "expired at \(at) (revoked)"
        }
    }

    /// `result` in the words of `expectedAnswer`; a live share's card counts
    /// only when it is this share's card byte for byte.
    public func describe(_ result: FetchResult) -> String {
        switch result {
        case .live(let share):
            let card = share.vCard == self.card ? "card of \(share.vCard.count) bytes" : "another card (\(share.vCard.count) bytes)"
            let name = share.recordName == self.name ? "" : " named \(share.recordName)"
            return "live\(name), \(card), created \(share.createdAt.milliseconds), expires \(share.expiresAt.milliseconds)"
        case .expired(let at, let reason):
            return "expired at \(at.milliseconds) (\(reason))"
        case .notFound:
            return "not found"
        }
    }
}
