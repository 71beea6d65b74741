import Foundation
// Testable only for `Share`'s memberwise initializer.
@testable import ShareLog

/// The projection rules of docs/FORMAT.md (format 2) restated as plainly as possible,
/// sharing no code with `ShareProjection`, `ShareState` or `Schema`: an
/// oracle that can catch a wrong rule, which a second store (same code) or
/// `verify` (same code again) cannot.
///
/// The model keeps only the log. Every derived database is a function of
/// it, recomputed from scratch by `image()`: per record name, the smallest
/// creation and the first revocation win, whatever order events came in.
struct ReferenceModel {
    /// The replica this model stands for; its own events carry this origin.
    let replica: ReplicaID
    /// Local sequence `i + 1` holds `log[i]`.
    private(set) var log: [Event] = []
    private(set) var originSequence: UInt64 = 0
    private var logged: Set<EventID> = []

    init(replica: ReplicaID) { self.replica = replica }

    /// Logs an event from anywhere, unless its id was logged before: a
    /// duplicate is a no-op, even when its content differs (a redacted copy).
    ///
    /// - Returns: whether it was logged.
    @discardableResult
    mutating func receive(_ event: Event) -> Bool {
        guard logged.insert(event.id).inserted else { return false }
        log.append(event)
        return true
    }

    /// Logs an event this replica makes.
    private mutating func make(_ kind: Event.Kind) {
        originSequence += 1
        receive(Event(id: EventID(origin: replica, counter: originSequence), kind: kind))
    }

    /// A share this replica created at `now` with `ttl`, named `name`.
    mutating func create(_ name: RecordName, vCard: [UInt8], at now: Timestamp, ttl: Duration) {
        let expiresAt = Timestamp(milliseconds: now.milliseconds + ttl.components.seconds * 1000)
        make(.shareCreated(ShareCreated(recordName: name, vCard: vCard, createdAt: now, expiresAt: expiresAt)))
    }

    /// Expires every pending share with `expiresAt <= now`, at its
    /// `expiresAt`, in `expiry` key order (the order a sweep walks them).
    ///
    /// - Returns: how many it expired.
    mutating func sweep(at now: Timestamp) -> Int {
        let due = image().expiry.filter { $0.value.expiresAt <= now.milliseconds }
            .map { key, pending in (key: Self.bigEndian(key.expiresAt) + Self.raw(key.name.uuid), name: key.name, at: pending.expiresAt) }
        for share in due.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            // ENGINE.md: a TTL end's id is the record name's 16 bytes and counter 0, on every replica.
            let id = EventID(origin: ReplicaID(uuid: share.name.uuid), counter: 0)
            receive(Event(id: id, kind: .shareExpired(ShareExpired(recordName: share.name, at: Timestamp(milliseconds: share.at), reason: .ttl))))
        }
        return due.count
    }

    /// Rewrites every queued creation without its card.
    ///
    /// - Returns: how many it rewrote.
    mutating func compact() -> Int {
        let queued = image().pendingRedactions
        for sequence in queued {
            guard case .shareCreated(let created) = log[Int(sequence) - 1].kind else { continue }
            let redacted = ShareCreated(recordName: created.recordName, vCard: nil, createdAt: created.createdAt, expiresAt: created.expiresAt)
            log[Int(sequence) - 1] = Event(id: log[Int(sequence) - 1].id, kind: .shareCreated(redacted))
        }
        return queued.count
    }

    /// Revokes `name` at `now` if it is live then (its card aside);
    /// otherwise the error a user gets, and nothing is logged.
    mutating func revoke(_ name: RecordName, at now: Timestamp) -> ShareLogError? {
        let image = image()
        guard let share = image.shares[name] else { return .notFound(name) }
        if let (at, reason) = Self.end(of: share, name, at: now, in: image) { return .expired(name, at: at, reason: reason) }
        make(.shareExpired(ShareExpired(recordName: name, at: now, reason: .revoked)))
        return nil
    }

    /// FORMAT.md's "What a share reads as at time t", without the card:
    /// the end the share has reached at `now`, or nil.
    private static func end(of share: StoreImage.Share, _ name: RecordName, at now: Timestamp, in image: StoreImage) -> (Timestamp, ExpiryReason)? {
        guard let creation = share.creation else {
            let ends = [(share.revocation, ExpiryReason.revoked), (share.ttlEnd, .ttl)].compactMap { end, reason in end.map { ($0, reason) } }
            let first = ends.min { isEarlier($0.0, than: $1.0) }
            return first.map { (Timestamp(milliseconds: $0.0.at), $0.1) }
        }
        if let revocation = share.revocation {
            return revocation.at < creation.expiresAt
                ? (Timestamp(milliseconds: revocation.at), .revoked) : (Timestamp(milliseconds: creation.expiresAt), .ttl)
        }
        let pending = image.expiry[.init(expiresAt: UInt64(max(creation.expiresAt, 0)), name: name)] != nil
        return creation.expiresAt <= now.milliseconds || !pending ? (Timestamp(milliseconds: creation.expiresAt), .ttl) : nil
    }

    /// What a fetch of `name` at `now` answers: expired from `expiresAt` on
    /// (lazy expiry), and a share whose winning creation's log entry holds
    /// no card has none to show, so it reads as expired too.
    ///
    /// - Parameter image: `image()`, passed in so that many fetches fold the log once.
    static func fetch(_ name: RecordName, at now: Timestamp, in image: StoreImage) -> FetchResult {
        guard let share = image.shares[name] else { return .notFound }
        if let (at, reason) = end(of: share, name, at: now, in: image) { return .expired(at: at, reason: reason) }
        guard let creation = share.creation else { return .notFound }
        let expiresAt = Timestamp(milliseconds: creation.expiresAt)
        guard case .shareCreated(let created)? = image.log[creation.position]?.kind, let vCard = created.vCard else {
            return .expired(at: expiresAt, reason: .ttl)
        }
        return .live(Share(recordName: name, vCard: vCard, createdAt: Timestamp(milliseconds: creation.createdAt), expiresAt: expiresAt))
    }

    /// What the store should hold now, folded from the log.
    func image() -> StoreImage {
        var image = StoreImage()
        image.originSequence = originSequence
        var creations: [RecordName: [(sequence: UInt64, holdsCard: Bool)]] = [:]
        var ended: Set<RecordName> = []
        var ttlEnds: [RecordName: StoreImage.End] = [:]
        for (index, event) in log.enumerated() {
            let sequence = UInt64(index + 1)
            image.log[sequence] = event
            image.eventIndex[event.id] = sequence
            switch event.kind {
            case .shareCreated(let created):
                let name = created.recordName
                creations[name, default: []].append((sequence, created.vCard != nil))
                let mine = StoreImage.Creation(
                    createdAt: created.createdAt.milliseconds, expiresAt: created.expiresAt.milliseconds, event: event.id, position: sequence)
                if let current = image.shares[name]?.creation, !Self.isSmaller(event.id, than: current.event) { continue }
                image.shares[name, default: StoreImage.Share()].creation = mine
            case .shareExpired(let expired):
                let name = expired.recordName
                ended.insert(name)
                let mine = StoreImage.End(at: expired.at.milliseconds, event: event.id)
                if image.shares[name] == nil { image.shares[name] = StoreImage.Share() }
                switch expired.reason {
                case .revoked:
                    if let current = image.shares[name]?.revocation, Self.isEarlier(current, than: mine) { continue }
                    image.shares[name]?.revocation = mine
                case .ttl:
                    if let current = ttlEnds[name], Self.isEarlier(current, than: mine) { continue }
                    ttlEnds[name] = mine
                }
            case .unknown:
                continue
            }
        }
        for (name, share) in image.shares {
            // A TTL end is kept only while no creation is known.
            if share.creation == nil { image.shares[name]?.ttlEnd = ttlEnds[name] }
            // A winning creation logged without its card, and no end logged:
            // it ended where it was redacted, and the state marks it.
            if let creation = share.creation, !ended.contains(name),
               creations[name]?.first(where: { $0.sequence == creation.position })?.holdsCard == false {
                image.shares[name]?.arrivedRedacted = true
                ended.insert(name)
            }
            let pending = share.creation != nil && !ended.contains(name)
            if let creation = share.creation, pending {
                image.expiry[.init(expiresAt: UInt64(max(creation.expiresAt, 0)), name: name)] = .init(position: creation.position, expiresAt: creation.expiresAt)
                image.liveCount += 1
            }
            if ended.contains(name) { image.expiredCount += 1 }
            for logged in creations[name] ?? [] where logged.holdsCard && !(pending && logged.sequence == share.creation?.position) {
                image.pendingRedactions.insert(logged.sequence)
            }
        }
        return image
    }

    /// The earlier of two ends: the earlier time, then the smaller event id.
    private static func isEarlier(_ one: StoreImage.End, than other: StoreImage.End) -> Bool {
        one.at < other.at || (one.at == other.at && isSmaller(one.event, than: other.event))
    }

    /// docs/ENGINE.md's order on event ids: the origin's 16 bytes as
    /// unsigned bytes, then the origin sequence.
    private static func isSmaller(_ one: EventID, than other: EventID) -> Bool {
        let mine = raw(one.origin.uuid), theirs = raw(other.origin.uuid)
        return mine == theirs ? one.counter < other.counter : mine.lexicographicallyPrecedes(theirs)
    }

    private static func raw(_ uuid: UUID) -> [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    private static func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

}
