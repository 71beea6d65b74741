/// What the log says about one record name: the projection rules of
/// `ShareProjection`, written out again as a plain fold, without the card.
///
/// The fold holds no vCard bytes. While the share is live, its card is the
/// one in the log entry of its winning creation, `creationSequence`, and
/// `verify` reads it from there when it compares.
struct ShareFold {
    /// One logged `shareCreated` of the name.
    struct LoggedCreation {
        let sequence: UInt64
        /// Whether the log entry still holds its card (not redacted).
        let holdsCard: Bool
    }

    /// The creation with the smallest event id; the first logged on a tie.
    private(set) var creation: ShareState.Creation?
    /// The log position of `creation`.
    private(set) var creationSequence: UInt64 = 0
    /// The expiration with the earliest time, then the smallest event id.
    private(set) var expiry: ShareState.Expiry?
    /// The first logged creation of the name, and any others (rival
    /// creations are rare, so the common fold allocates no array).
    private var firstCreation: LoggedCreation?
    private var otherCreations: [LoggedCreation] = []

    /// Every logged creation of the name, in log order.
    var creations: [LoggedCreation] {
        guard let firstCreation else { return [] }
        return [firstCreation] + otherCreations
    }

    mutating func add(_ created: ShareCreated, id: EventID, at sequence: UInt64) {
        let logged = LoggedCreation(sequence: sequence, holdsCard: created.vCard != nil)
        if firstCreation == nil { firstCreation = logged } else { otherCreations.append(logged) }
        if creation.map({ id < $0.event }) ?? true {
            creation = ShareState.Creation(createdAt: created.createdAt, expiresAt: created.expiresAt, event: id)
            creationSequence = sequence
        }
    }

    mutating func add(_ expired: ShareExpired, id: EventID) {
        let candidate = ShareState.Expiry(at: expired.at, reason: expired.reason, event: id)
        if expiry.map({ candidate.precedes($0) }) ?? true { expiry = candidate }
    }

    /// The creation of a share that is live: created and not expired.
    var liveCreation: ShareState.Creation? { expiry == nil ? creation : nil }

    /// Whether the winning creation's log entry holds a card.
    var creationHoldsCard: Bool {
        creations.contains { $0.sequence == creationSequence && $0.holdsCard }
    }

    /// The log entries `pendingRedactions` must list: every creation that
    /// still holds its card, once the share has expired.
    var pendingRedactions: [UInt64] {
        expiry == nil ? [] : creations.filter(\.holdsCard).map(\.sequence)
    }

    /// The stored state the log implies, given the winning creation's card
    /// (nil when its entry holds none).
    func state(card: [UInt8]?) -> ShareState {
        ShareState(creation: creation, expiry: expiry, vCard: liveCreation == nil ? nil : card)
    }
}
