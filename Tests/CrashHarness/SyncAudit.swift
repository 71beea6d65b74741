import ShareLog

/// Checks one store of a converged pair against the history of both sides
/// (`SyncModel`): every acknowledged create answers live with its card, or
/// revoked at the acknowledged revoke's time; nothing is there twice (an
/// event id, a share's creation or end, a card under two record names); no
/// phantom (a card no writer began, an end no writer began). `verify` is
/// `StoreInvariants`' part, checked beside it.
struct SyncAudit {
    /// What an audit read, beyond the violations.
    struct Outcome {
        var check = CrashCheck()
        /// Every event id in the log, with its log position.
        var positions: [EventID: UInt64] = [:]
        /// The log's last position.
        var lastPosition: UInt64 = 0
    }

    let model: SyncModel
    let store: ShareStore
    /// The store's name in violations: "A" or "B".
    let label: String
    /// The time every fetch is made at (inside every share's TTL).
    var time: Timestamp?
    private var outcome = Outcome()
    /// Card bytes of every begun create, to recognise a card in the log.
    private var cards: [[UInt8]: Int] = [:]
    private var cardHolders: [Int: RecordName] = [:]
    private var created: [RecordName: UInt64] = [:]
    private var ended: [RecordName: UInt64] = [:]

    init(model: SyncModel, store: ShareStore, label: String, at time: Timestamp? = nil) {
        self.model = model
        self.store = store
        self.label = label
        self.time = time
    }

    /// Reads the whole log, then every acknowledged share.
    mutating func run() throws -> Outcome {
        for card in model.begunCards { cards[CrashCard.bytes(index: card)] = card }
        var after: UInt64 = 0
        while case let entries = try store.events(after: after), !entries.isEmpty {
            for entry in entries { read(entry) }
            after = entries[entries.count - 1].position
            outcome.check.events += entries.count
        }
        outcome.lastPosition = try store.lastPosition()
        for creation in model.creations.values.sorted(by: { ($0.operation.slot, $0.operation.number) < ($1.operation.slot, $1.operation.number) }) {
            try checkAnswer(of: creation)
        }
        outcome.check.inDoubtApplied = model.inDoubtCards.filter { cardHolders[$0] != nil }.count
        return outcome
    }

    private mutating func read(_ entry: LoggedEvent) {
        let id = entry.event.id
        if let earlier = outcome.positions[id] {
            fail("event \(id) is in the log twice, at positions \(earlier) and \(entry.position)")
        } else {
            outcome.positions[id] = entry.position
        }
        switch entry.event.kind {
        case .shareCreated(let creation):
            let name = creation.recordName
            if let earlier = created[name] {
                fail("share \(name) is created twice, at positions \(earlier) and \(entry.position)")
                return
            }
            created[name] = entry.position
            let index: Int
            if let card = creation.vCard {
                guard let found = cards[card] else {
                    fail("share \(name) holds a card of \(card.count) bytes that no writer began to create")
                    return
                }
                index = found
                if let acknowledged = model.creations[name], acknowledged.card != index {
                    fail("share \(name) holds card \(index), but its writer acknowledged card \(acknowledged.card)")
                }
            } else {
                // Sent without its card: only a revoked share's creation is.
                if !model.revokeBegun(name) { fail("share \(name) came without its card, but no writer began a revoke of it") }
                // Revokes target acknowledged creates only, whose card the ack names.
                guard let acknowledged = model.creations[name] else { return }
                index = acknowledged.card
            }
            if let holder = cardHolders[index] {
                fail("card \(index) is there twice, as share \(holder) and share \(name)")
            }
            cardHolders[index] = name
        case .shareExpired(let end):
            let name = end.recordName
            if let earlier = ended[name] {
                fail("share \(name) ended twice, at positions \(earlier) and \(entry.position)")
            }
            ended[name] = entry.position
            if end.reason != .revoked || !model.revokeBegun(name) {
                fail("share \(name) ended at \(end.at) (\(end.reason)), but no writer began a revoke of it")
            }
        case .unknown(let code, _, _):
            fail("position \(entry.position) holds an event of unknown kind \(code)")
        }
    }

    private mutating func checkAnswer(of creation: SyncModel.Creation) throws {
        let answer = try store.fetch(creation.name, at: time)
        let what = "share \(creation.name) (card \(creation.card), slot \(creation.operation.slot) operation \(creation.operation.number))"
        let revoked = model.revokes[creation.name].map { FetchResult.expired(at: Timestamp(milliseconds: $0), reason: .revoked) }
        outcome.check.operationsChecked += revoked == nil ? 1 : 2
        if let revoked {
            if answer != revoked { fail("\(what), whose revoke was acknowledged, answers \(Self.describe(answer)), not \(Self.describe(revoked))") }
            return
        }
        if let inDoubt = model.revokesInDoubt[creation.name],
           answer == .expired(at: Timestamp(milliseconds: inDoubt), reason: .revoked) {
            return
        }
        guard case .live(let share) = answer, share.vCard == CrashCard.bytes(index: creation.card),
              share.expiresAt.milliseconds == creation.expiresAt
        else {
            fail("acknowledged \(what) answers \(Self.describe(answer)), not live with its card until \(Timestamp(milliseconds: creation.expiresAt))")
            return
        }
    }

    /// A fetch answer in a few words (never the card's bytes).
    static func describe(_ answer: FetchResult) -> String {
        switch answer {
        case .live(let share): "live with a card of \(share.vCard.count) bytes until \(share.expiresAt)"
        case .expired(let at, let reason): "expired at \(at) (\(reason))"
        case .notFound: "not found"
        }
    }

    private mutating func fail(_ message: String) { outcome.check.fail("\(label): \(message)") }
}
