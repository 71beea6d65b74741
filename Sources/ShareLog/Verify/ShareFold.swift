/// What the log says about one record name: the rules of docs/FORMAT.md
/// (format 2), written out again as a plain fold, apart from
/// `ShareProjection`, so that `verify` also catches a wrong projection rule.
///
/// The fold holds no vCard bytes, only which logged creations still hold
/// one. `verify` makes one per name as it compares the name, from the log
/// entries its `NameWindow` lists. The common share, one creation and
/// perhaps a TTL end, is held inline; a revocation, a second creation or a
/// TTL end before any creation goes in a box that few names have.
struct ShareFold {
    /// One logged `shareCreated` of the name.
    struct LoggedCreation {
        let position: UInt64
        /// Whether the log entry still holds its card (not redacted).
        let holdsCard: Bool
    }

    /// The facts few names have, boxed so that the common fold stays small.
    /// Immutable: a change replaces the box, so a copy of the fold never
    /// sees another's change.
    private final class Rare {
        let revocation: ShareState.End?
        let ttlEnd: ShareState.End?
        /// Every logged creation, in log order, once there are two or more.
        let creations: [LoggedCreation]

        init(revocation: ShareState.End?, ttlEnd: ShareState.End?, creations: [LoggedCreation]) {
            self.revocation = revocation
            self.ttlEnd = ttlEnd
            self.creations = creations
        }
    }

    private enum Flag {
        /// The first logged creation still holds its card.
        static let firstHoldsCard: UInt8 = 1
        /// The winning creation was logged without its card.
        static let winnerHasNoCard: UInt8 = 2
        /// A TTL end is logged (its value is kept only while no creation is).
        static let ttlEndLogged: UInt8 = 4
    }

    /// The creation with the smallest event id. (Declared before `flags`,
    /// which fills its optional's padding.)
    private(set) var creation: ShareState.Creation?
    private var flags: UInt8 = 0
    private var rare: Rare?

    /// The revocation with the earliest time, then the smallest event id.
    var revocation: ShareState.End? { rare?.revocation }

    /// Every logged creation of the name, in log order.
    var creations: [LoggedCreation] {
        if let rare, !rare.creations.isEmpty { return rare.creations }
        guard let creation else { return [] }
        return [LoggedCreation(position: creation.position, holdsCard: flags & Flag.firstHoldsCard != 0)]
    }

    private func replacingRare(
        revocation: ShareState.End?? = nil, ttlEnd: ShareState.End?? = nil, creations: [LoggedCreation]? = nil
    ) -> Rare {
        Rare(revocation: revocation ?? rare?.revocation, ttlEnd: ttlEnd ?? rare?.ttlEnd, creations: creations ?? rare?.creations ?? [])
    }

    mutating func add(
        creationAt position: UInt64, id: EventID, createdAt: Timestamp, expiresAt: Timestamp, holdsCard: Bool
    ) {
        let logged = LoggedCreation(position: position, holdsCard: holdsCard)
        if creation == nil {
            if holdsCard { flags |= Flag.firstHoldsCard }
        } else {
            rare = replacingRare(creations: creations + [logged])
        }
        if creation.map({ id < $0.event }) ?? true {
            creation = ShareState.Creation(createdAt: createdAt, expiresAt: expiresAt, event: id, position: position)
            flags = holdsCard ? flags & ~Flag.winnerHasNoCard : flags | Flag.winnerHasNoCard
        }
    }

    mutating func add(endAt at: Timestamp, id: EventID, reason: ExpiryReason) {
        let end = ShareState.End(at: at, event: id)
        switch reason {
        case .revoked:
            rare = replacingRare(revocation: end.earliest(rare?.revocation))
        case .ttl:
            flags |= Flag.ttlEndLogged
            // Once a creation is logged, the state needs only that a TTL end is.
            if creation == nil { rare = replacingRare(ttlEnd: end.earliest(rare?.ttlEnd)) }
        }
    }

    /// Whether a `shareExpired` of the name is logged.
    private var endLogged: Bool { revocation != nil || flags & Flag.ttlEndLogged != 0 }

    /// Whether the winning creation holds no card and no end is logged
    /// (compaction redacts only winners with an end logged).
    private var arrivedRedacted: Bool { creation != nil && flags & Flag.winnerHasNoCard != 0 && !endLogged }

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
        ShareState(creation: creation, revocation: revocation, ttlEnd: creation == nil ? rare?.ttlEnd : nil, arrivedRedacted: arrivedRedacted)
    }
}
