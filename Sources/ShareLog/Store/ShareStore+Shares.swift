import LMDB
import ShareClip

extension ShareStore {
    /// The shortest and longest time to live a share may have.
    public static let ttlRange: ClosedRange<Duration> = .seconds(60) ... .seconds(30 * 24 * 3600)
    /// A week, as in the App Clip card design.
    public static let defaultTTL: Duration = .seconds(7 * 24 * 3600)

    /// Creates a share of `vCard` that lives for `ttl`.
    ///
    /// - Throws: `invalidVCard` or `invalidTTL` with nothing written.
    /// - Returns: after the share is durably committed. Concurrent creates
    ///   may share one commit (group commit).
    @available(*, noasync, message: "use the async create from async code")
    public func create(vCard: [UInt8], ttl: Duration = ShareStore.defaultTTL) throws(ShareLogError) -> CreatedShare {
        let created = try prepareCreation(of: vCard, ttl: ttl)
        try write { txn in _ = try self.appendLocal(CollectionOfOne(.shareCreated(created)), in: txn) }
        return receipt(for: created)
    }

    /// The async form of `create`: suspends instead of blocking a thread.
    public func create(vCard: [UInt8], ttl: Duration = ShareStore.defaultTTL) async throws(ShareLogError) -> CreatedShare {
        let created = try prepareCreation(of: vCard, ttl: ttl)
        try await write { txn in _ = try self.appendLocal(CollectionOfOne(.shareCreated(created)), in: txn) }
        return receipt(for: created)
    }

    /// Creates one share per card in a single transaction: all or none.
    ///
    /// - Throws: `invalidVCard` or `invalidTTL` for any card, with nothing written.
    @available(*, noasync, message: "use the async create(vCards:) from async code")
    public func create(vCards: [[UInt8]], ttl: Duration = ShareStore.defaultTTL) throws(ShareLogError) -> [CreatedShare] {
        let batch = try vCards.map { vCard throws(ShareLogError) in try prepareCreation(of: vCard, ttl: ttl) }
        try write { txn in _ = try self.appendLocal(batch.lazy.map(Event.Kind.shareCreated), in: txn) }
        return batch.map(receipt(for:))
    }

    /// The async form of `create(vCards:ttl:)`: suspends instead of blocking a thread.
    public func create(vCards: [[UInt8]], ttl: Duration = ShareStore.defaultTTL) async throws(ShareLogError) -> [CreatedShare] {
        let batch = try vCards.map { vCard throws(ShareLogError) in try prepareCreation(of: vCard, ttl: ttl) }
        try await write { txn in _ = try self.appendLocal(batch.lazy.map(Event.Kind.shareCreated), in: txn) }
        return batch.map(receipt(for:))
    }

    /// Validates a card and TTL and stamps a new share with a record name
    /// (a time-ordered one, `RecordName.timeOrdered(at:)`, unless `name`
    /// is given).
    func prepareCreation(of vCard: [UInt8], ttl: Duration, named name: RecordName? = nil) throws(ShareLogError) -> ShareCreated {
        do { try VCardValidator.validate(vCard) } catch { throw .invalidVCard(error) }
        guard ShareStore.ttlRange.contains(ttl) else { throw .invalidTTL(seconds: ttl.components.seconds) }
        let createdAt = clock.now()
        return ShareCreated(
            recordName: name ?? .timeOrdered(at: createdAt), vCard: vCard, createdAt: createdAt, expiresAt: createdAt.advanced(by: ttl))
    }

    func receipt(for created: ShareCreated) -> CreatedShare {
        CreatedShare(recordName: created.recordName, createdAt: created.createdAt, expiresAt: created.expiresAt, linkDomain: options.linkDomain)
    }

    /// What the store knows of `name` at `time` (default: now).
    ///
    /// A share is reported expired from its `expiresAt` on, whether or not
    /// a sweep has run (lazy expiry). One read transaction: the share's
    /// state, then the log entry of its creation for the card; O(log n).
    public func fetch(_ name: RecordName, at time: Timestamp? = nil) throws(ShareLogError) -> FetchResult {
        let now = time ?? clock.now()
        return try read { txn -> FetchResult in
            guard let state = try projection.state(of: name, in: txn) else { return .notFound }
            if let end = try projection.end(of: name, state, at: now, in: txn) { return .expired(at: end.at, reason: end.reason) }
            guard let creation = state.creation else { return .notFound }
            // A creation that arrived already redacted has no card to show.
            guard let vCard = try log.card(at: creation.position, in: txn) else {
                return .expired(at: creation.expiresAt, reason: .ttl)
            }
            return .live(Share(recordName: name, vCard: vCard, createdAt: creation.createdAt, expiresAt: creation.expiresAt))
        }
    }

    /// What the store knows of the share an App Clip link points to.
    ///
    /// - Throws: `invalidLink` for a link that is not this store's
    ///   `https://<linkDomain>/appclip?id=<record name>`.
    public func fetch(link: String, at time: Timestamp? = nil) throws(ShareLogError) -> FetchResult {
        try fetch(recordName(fromLink: link), at: time)
    }

    /// The record name an App Clip link points to.
    public func recordName(fromLink link: String) throws(ShareLogError) -> RecordName {
        do {
            switch try AppClipLinkParser(domains: [options.linkDomain]).parse(link) {
            case .share(let recordName): return RecordName(uuid: recordName)
            }
        } catch {
            throw .invalidLink(error)
        }
    }

    /// The live share `name`, or the error that says why there is none.
    public func share(_ name: RecordName, at time: Timestamp? = nil) throws(ShareLogError) -> Share {
        switch try fetch(name, at: time) {
        case .live(let share): return share
        case .expired(let at, let reason): throw .expired(name, at: at, reason: reason)
        case .notFound: throw .notFound(name)
        }
    }

    /// Ends a live share now: logs `shareExpired(revoked)` and drops its card.
    ///
    /// - Throws: `notFound`, or `expired` when it already ended (due shares
    ///   included); nothing is written then.
    @discardableResult
    @available(*, noasync, message: "use the async revoke from async code")
    public func revoke(_ name: RecordName) throws(ShareLogError) -> ShareExpired {
        try write(revocation(of: name))
    }

    /// The async form of `revoke(_:)`: suspends instead of blocking a thread.
    @discardableResult
    public func revoke(_ name: RecordName) async throws(ShareLogError) -> ShareExpired {
        try await write(revocation(of: name))
    }

    /// The write that revokes `name` now.
    private func revocation(of name: RecordName) -> @Sendable (borrowing WriteTransaction) throws -> ShareExpired {
        let now = clock.now()
        return { txn in
            guard let state = try self.projection.state(of: name, in: txn) else {
                throw ShareLogError.notFound(name)
            }
            if let end = try self.projection.end(of: name, state, at: now, in: txn) {
                throw ShareLogError.expired(name, at: end.at, reason: end.reason)
            }
            let expired = ShareExpired(recordName: name, at: now, reason: .revoked)
            try self.appendLocal(CollectionOfOne(.shareExpired(expired)), in: txn)
            return expired
        }
    }
}
