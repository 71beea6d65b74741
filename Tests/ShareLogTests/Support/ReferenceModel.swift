import Foundation
// Testable only for `Share`'s memberwise initializer.
@testable import ShareLog

/// The projection rules of docs/ENGINE.md restated as plainly as possible,
/// sharing no code with `ShareProjection`, `ShareState` or `Schema`: an
/// oracle that can catch a wrong rule, which a second store (same code) or
/// `verify` (same code again) cannot.
///
/// The model keeps only the log. Every derived database is a function of
/// it, recomputed from scratch by `image()`: per record name, the smallest
/// creation and the first expiration win, whatever order events came in.
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

    /// Expires every live share with `expiresAt <= now`, at its `expiresAt`,
    /// in `expiry` key order (the order a sweep walks them).
    ///
    /// - Returns: how many it expired.
    mutating func sweep(at now: Timestamp) -> Int {
        let due = image().shares.compactMap { name, share -> (key: [UInt8], name: RecordName, at: Int64)? in
            guard let creation = share.creation, share.expiry == nil, creation.expiresAt <= now.milliseconds else { return nil }
            return (Self.bigEndian(UInt64(max(creation.expiresAt, 0))) + Self.raw(name.uuid), name, creation.expiresAt)
        }
        for share in due.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            make(.shareExpired(ShareExpired(recordName: share.name, at: Timestamp(milliseconds: share.at), reason: .ttl)))
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

    /// Revokes `name` at `now` if it is live then; otherwise the error a
    /// user gets, and nothing is logged.
    mutating func revoke(_ name: RecordName, at now: Timestamp) -> ShareLogError? {
        guard let share = image().shares[name] else { return .notFound(name) }
        if let expiry = share.expiry { return .expired(name, at: Timestamp(milliseconds: expiry.at), reason: Self.reason(expiry.reason)) }
        if let creation = share.creation, creation.expiresAt <= now.milliseconds {
            return .expired(name, at: Timestamp(milliseconds: creation.expiresAt), reason: .ttl)
        }
        make(.shareExpired(ShareExpired(recordName: name, at: now, reason: .revoked)))
        return nil
    }

    /// What a fetch of `name` at `now` answers: expired from `expiresAt` on
    /// (lazy expiry), and a live share whose winning creation came without
    /// its card has none to show, so it reads as expired too.
    ///
    /// - Parameter image: `image()`, passed in so that many fetches fold the log once.
    static func fetch(_ name: RecordName, at now: Timestamp, in image: StoreImage) -> FetchResult {
        guard let share = image.shares[name] else { return .notFound }
        if let expiry = share.expiry { return .expired(at: Timestamp(milliseconds: expiry.at), reason: reason(expiry.reason)) }
        guard let creation = share.creation else { return .notFound }
        let expiresAt = Timestamp(milliseconds: creation.expiresAt)
        guard expiresAt > now, let vCard = share.vCard else { return .expired(at: expiresAt, reason: .ttl) }
        return .live(Share(recordName: name, vCard: vCard, createdAt: Timestamp(milliseconds: creation.createdAt), expiresAt: expiresAt))
    }

    /// What the store should hold now, folded from the log.
    func image() -> StoreImage {
        var image = StoreImage()
        image.originSequence = originSequence
        var winningCard: [RecordName: [UInt8]?] = [:]
        for (index, event) in log.enumerated() {
            let sequence = UInt64(index + 1)
            image.log[sequence] = event
            image.eventIndex[event.id] = sequence
            switch event.kind {
            case .shareCreated(let created):
                let name = created.recordName
                image.recordCreates[.init(name: name, sequence: sequence)] = created.vCard == nil ? 0 : 1
                let mine = StoreImage.Creation(createdAt: created.createdAt.milliseconds, expiresAt: created.expiresAt.milliseconds, event: event.id)
                if let current = image.shares[name]?.creation, !Self.isSmaller(event.id, than: current.event) { continue }
                image.shares[name, default: StoreImage.Share()].creation = mine
                winningCard[name] = created.vCard
            case .shareExpired(let expired):
                let name = expired.recordName
                let mine = StoreImage.Expiry(at: expired.at.milliseconds, reason: expired.reason == .ttl ? 1 : 2, event: event.id)
                if let current = image.shares[name]?.expiry,
                   current.at < mine.at || (current.at == mine.at && Self.isSmaller(current.event, than: mine.event)) { continue }
                image.shares[name, default: StoreImage.Share()].expiry = mine
            case .unknown:
                continue
            }
        }
        for (name, share) in image.shares {
            if let creation = share.creation, share.expiry == nil {
                image.shares[name]?.vCard = winningCard[name] ?? nil
                image.expiry.insert(.init(expiresAt: UInt64(max(creation.expiresAt, 0)), name: name))
                image.liveCount += 1
            } else {
                image.expiredCount += 1
            }
        }
        for (key, holdsCard) in image.recordCreates where holdsCard == 1 && image.shares[key.name]?.expiry != nil {
            image.pendingRedactions.insert(key.sequence)
        }
        return image
    }

    /// docs/ENGINE.md's order on event ids: the origin's 16 bytes as
    /// unsigned bytes, then the origin sequence.
    private static func isSmaller(_ one: EventID, than other: EventID) -> Bool {
        let mine = raw(one.origin.uuid), theirs = raw(other.origin.uuid)
        return mine == theirs ? one.counter < other.counter : mine.lexicographicallyPrecedes(theirs)
    }

    private static func raw(_ uuid: UUID) -> [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    private static func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    private static func reason(_ code: UInt8) -> ExpiryReason { code == 1 ? .ttl : .revoked }
}
