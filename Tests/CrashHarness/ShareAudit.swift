import ShareLog

/// Checks a reopened share store against a `ShareModel`, through the public
/// API only: the whole log (`events(after:)`), every share (`fetch`) and the
/// counters (`stats`).
///
/// Invariants, each a `CrashViolation` when broken:
/// - the log's local sequences run 1, 2, 3, … without a gap; a TTL end
///   carries its share's TTL-end id (the record name, counter 0), and every
///   other entry is this replica's own next event, counted 1, 2, 3, … in
///   log order (every event here is local);
/// - every acknowledged create and revoke is in the log as printed, and so is
///   every end a writer observed (a refused revoke, a read);
/// - every logged share was begun by a writer (no phantoms) with the card,
///   times and reason it was begun with, created and ended at most once; a
///   revoke was begun by a writer at its time; a ttl expiry is at the
///   share's `expiresAt`, and some sweep began at or after it;
/// - a sweep acknowledged in a slot ended every share created before it in
///   that slot that it found due; a compaction acknowledged in a slot
///   redacted every share whose end was acknowledged before it there; no live
///   share lost its card; acknowledged sweep and compaction counts are there;
/// - `fetch` agrees with the log for every share, and `stats` counts them.
struct ShareAudit {
    let model: ShareModel
    let store: ShareStore
    private var check = CrashCheck()
    private var created: [RecordName: (creation: ShareModel.Creation, redacted: Bool)] = [:]
    private var ended: [RecordName: (at: Int64, reason: ExpiryReason)] = [:]
    private var matchedInDoubt: Set<Int> = []

    init(model: ShareModel, store: ShareStore) {
        self.model = model
        self.store = store
    }

    mutating func run() throws -> CrashCheck {
        check.operationsChecked = model.operations
        try readLog()
        checkAcknowledged()
        checkSweepsAndCompactions()
        try checkFetches()
        check.inDoubtApplied = matchedInDoubt.count
            + model.inDoubtRevokes.filter { name, at in ended[name].map { $0 == (at, .revoked) } ?? false }.count
        return check
    }

    private mutating func readLog() throws {
        var last: UInt64 = 0
        var ownEvents: UInt64 = 0
        while true {
            let page = try store.events(after: last, limit: 500)
            guard !page.isEmpty else { return }
            for logged in page {
                if logged.position != last + 1 { check.fail("log sequences jump from \(last) to \(logged.position)") }
                if case .shareExpired(let expiry) = logged.event.kind, expiry.reason == .ttl {
                    if logged.event.id != EventID(origin: ReplicaID(uuid: expiry.recordName.uuid), counter: 0) {
                        check.fail("log entry \(logged.position) holds TTL end \(logged.event.id), not share \(expiry.recordName)'s TTL-end id")
                    }
                } else {
                    ownEvents += 1
                    if logged.event.id != EventID(origin: store.replicaID, counter: ownEvents) {
                        check.fail("log entry \(logged.position) holds event \(logged.event.id), not this replica's event \(ownEvents)")
                    }
                }
                last = logged.position
                check.events += 1
                record(logged)
            }
        }
    }

    private mutating func record(_ logged: LoggedEvent) {
        switch logged.event.kind {
        case .shareCreated(let share):
            recordCreation(share, at: logged.position)
        case .shareExpired(let expiry):
            recordExpiry(expiry, at: logged.position)
        case .unknown(let code, _, _):
            check.fail("log entry \(logged.position) has kind \(code), which no writer makes")
        }
    }

    private mutating func recordCreation(_ share: ShareCreated, at sequence: UInt64) {
        let name = share.recordName
        guard created[name] == nil else { return check.fail("share \(name) is created twice (again at \(sequence))") }
        func matches(_ creation: ShareModel.Creation) -> Bool {
            creation.createdAt == share.createdAt.milliseconds && creation.expiresAt == share.expiresAt.milliseconds
                && (share.vCard == nil || share.vCard == creation.card)
        }
        if let creation = model.acknowledgedCreates[name] {
            guard matches(creation) else { return check.fail("share \(name) at \(sequence) differs from its acknowledged create") }
            created[name] = (creation, share.vCard == nil)
        } else if let index = model.inDoubtCreates.indices.first(where: {
            !matchedInDoubt.contains($0) && matches(model.inDoubtCreates[$0])
        }) {
            matchedInDoubt.insert(index)
            created[name] = (model.inDoubtCreates[index], share.vCard == nil)
        } else {
            check.fail("share \(name) at \(sequence) matches no create any writer began (a phantom)")
        }
    }

    private mutating func recordExpiry(_ expiry: ShareExpired, at sequence: UInt64) {
        let name = expiry.recordName, at = expiry.at.milliseconds
        guard let creation = created[name]?.creation else {
            return check.fail("log entry \(sequence) ends share \(name), which the log never created before it")
        }
        guard ended[name] == nil else { return check.fail("share \(name) is ended twice (again at \(sequence))") }
        ended[name] = (at, expiry.reason)
        switch expiry.reason {
        case .revoked:
            if model.revokes[name]?.time != at && model.inDoubtRevokes[name] != at {
                check.fail("share \(name) is revoked at \(at) (entry \(sequence)) but no writer began that revoke")
            }
        case .ttl:
            if at != creation.expiresAt {
                check.fail("share \(name) expired by ttl at \(at) (entry \(sequence)), but it expires at \(creation.expiresAt)")
            } else if model.latestSweep.map({ $0 < at }) ?? true {
                check.fail("share \(name) expired by ttl at \(at) (entry \(sequence)), but no sweep began at or after that time "
                    + "(the latest began at \(model.latestSweep.map(String.init) ?? "no time"))")
            }
        }
    }

    private mutating func checkAcknowledged() {
        for name in model.acknowledgedCreates.keys where created[name] == nil {
            check.fail("acknowledged create of \(name) is not in the log")
        }
        for (name, step) in model.revokes where ended[name].map({ $0 != (step.time, .revoked) }) ?? true {
            check.fail("acknowledged revoke of \(name) at \(step.time) is not in the log")
        }
        for (name, refusal) in model.refusals where ended[name].map({ ($0.at, $0.reason.description) != refusal }) ?? true {
            check.fail("a writer found \(name) ended at \(refusal.at) (\(refusal.reason)), but the log says otherwise")
        }
    }

    private mutating func checkSweepsAndCompactions() {
        for sweep in model.sweeps {
            for name in model.creates(in: sweep.slot, before: sweep.number, dueAt: sweep.time) where ended[name] == nil {
                check.fail("writer \(sweep.slot)'s sweep at \(sweep.time) (operation \(sweep.number)) left due share \(name) live")
            }
        }
        for compaction in model.compactions {
            for name in model.endedShares(in: compaction.slot, before: compaction.number) where created[name]?.redacted == false {
                check.fail("writer \(compaction.slot)'s compaction (operation \(compaction.number)) left the card of ended share \(name) in the log")
            }
        }
        for (name, entry) in created where entry.redacted && ended[name] == nil {
            check.fail("live share \(name) lost its card in the log")
        }
        let ttlExpiries = ended.values.filter { $0.reason == .ttl }.count
        let swept = model.sweeps.reduce(0) { $0 + $1.count }
        if swept > ttlExpiries { check.fail("acknowledged sweeps expired \(swept) shares, but the log has \(ttlExpiries) ttl expiries") }
        let redacted = created.values.filter(\.redacted).count
        let compacted = model.compactions.reduce(0) { $0 + $1.count }
        if compacted > redacted { check.fail("acknowledged compactions redacted \(compacted) entries, but the log has \(redacted)") }
    }

    private mutating func checkFetches() throws {
        for (name, entry) in created {
            let creation = entry.creation
            let result = try store.fetch(name, at: Timestamp(milliseconds: creation.createdAt))
            if let end = ended[name] {
                // docs/FORMAT.md: a share reads as ended by its revocation
                // only if that came before its expiresAt, and a TTL end
                // reads as the expiresAt its creation set.
                let expected = end.reason == .revoked && end.at < creation.expiresAt
                    ? FetchResult.expired(at: Timestamp(milliseconds: end.at), reason: .revoked)
                    : .expired(at: Timestamp(milliseconds: creation.expiresAt), reason: .ttl)
                if result != expected {
                    check.fail("fetch(\(name)) answers \(Self.describe(result)), but the log ended it at \(end.at) (\(end.reason))")
                }
            } else if case .live(let share) = result {
                if share.vCard != creation.card || share.createdAt.milliseconds != creation.createdAt
                    || share.expiresAt.milliseconds != creation.expiresAt {
                    check.fail("fetch(\(name)) answers a share that differs from its create")
                }
            } else {
                check.fail("fetch(\(name)) answers \(Self.describe(result)), but the log says it is live")
            }
        }
        let stats = try store.stats()
        if stats.live + stats.expired != created.count || stats.expired != ended.count {
            check.fail("stats count \(stats.live) live and \(stats.expired) expired, the log \(created.count) shares, \(ended.count) ended")
        }
        if stats.events != check.events || stats.lastPosition != UInt64(check.events) {
            check.fail("stats count \(stats.events) events up to sequence \(stats.lastPosition); the log read \(check.events)")
        }
    }

    /// A fetch answer in a violation's words, without the card's bytes.
    private static func describe(_ result: FetchResult) -> String {
        switch result {
        case .live: "live"
        case .expired(let at, let reason): "expired at \(at.milliseconds) (\(reason))"
        case .notFound: "not found"
        }
    }
}
