/// What the log says about one record name: the rules of docs/FORMAT.md
/// (format 2), written out again as a plain fold, apart from
/// `ShareProjection`, so that `verify` also catches a wrong projection rule.
///
/// The fold holds no vCard bytes, only which logged creations still hold one.
struct ShareFold {
    /// One logged `shareCreated` of the name.
    struct LoggedCreation {
        let position: UInt64
        /// Whether the log entry still holds its card (not redacted).
        let holdsCard: Bool
    }

    /// The creation with the smallest event id.
    private(set) var creation: ShareState.Creation?
    /// The revocation with the earliest time, then the smallest event id.
    private(set) var revocation: ShareState.End?
    /// The TTL end with the earliest time, then the smallest event id.
    private var ttlEnd: ShareState.End?
    /// The first logged creation of the name, and any others (rival
    /// creations are rare, so the common fold allocates no array).
    private var firstCreation: LoggedCreation?
    private var otherCreations: [LoggedCreation] = []

    /// Every logged creation of the name, in log order.
    var creations: [LoggedCreation] {
        guard let firstCreation else { return [] }
        return [firstCreation] + otherCreations
    }

    /// Whether the winning creation was logged without its card (it
    /// arrived redacted, or compaction redacted it).
    private var winnerHasNoCard = false

    mutating func add(_ created: ShareCreated, id: EventID, at position: UInt64) {
        let logged = LoggedCreation(position: position, holdsCard: created.vCard != nil)
        if firstCreation == nil { firstCreation = logged } else { otherCreations.append(logged) }
        if creation.map({ id < $0.event }) ?? true {
            creation = ShareState.Creation(createdAt: created.createdAt, expiresAt: created.expiresAt, event: id, position: position)
            winnerHasNoCard = created.vCard == nil
        }
    }

    mutating func add(_ expired: ShareExpired, id: EventID) {
        let end = ShareState.End(at: expired.at, event: id)
        switch expired.reason {
        case .revoked: revocation = end.earliest(revocation)
        case .ttl: ttlEnd = end.earliest(ttlEnd)
        }
    }

    /// Whether a `shareExpired` of the name is logged.
    private var endLogged: Bool { revocation != nil || ttlEnd != nil }

    /// Whether the winning creation holds no card and no end is logged
    /// (compaction redacts only winners with an end logged).
    private var arrivedRedacted: Bool { creation != nil && winnerHasNoCard && !endLogged }

    /// Whether the share reads as ended: an end is logged, or its winning
    /// creation arrived without its card.
    var hasEnded: Bool { endLogged || arrivedRedacted }

    /// The creation of a pending share: created, and no end logged.
    var pendingCreation: ShareState.Creation? { hasEnded ? nil : creation }

    /// The log entries `pendingRedactions` must list: every creation that
    /// still holds its card, but a pending share's winning one.
    var pendingRedactions: [UInt64] {
        creations.filter { $0.holdsCard && $0.position != pendingCreation?.position }.map(\.position)
    }

    /// The stored state the log implies.
    var state: ShareState {
        ShareState(creation: creation, revocation: revocation, ttlEnd: creation == nil ? ttlEnd : nil, arrivedRedacted: arrivedRedacted)
    }
}
