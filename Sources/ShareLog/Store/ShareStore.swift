import Foundation
import LMDB
import ShareClip
import SharePrimitives

/// A ShareLog replica: one LMDB environment holding the event log and its
/// projections.
///
/// Every operation that writes is one LMDB transaction that appends to the
/// log, updates the indexes and projections, and commits durably before it
/// returns, so nothing is ever visible half-done and an acknowledged share
/// survives a crash. Reads see a consistent snapshot.
///
/// Thread-safe. Instances opened on one directory in a process share one
/// LMDB environment (the LMDB module's registry sees to it), which closes
/// with the last of them. `close()` ends an instance's life at a moment
/// of the caller's choosing (`ShareStore+Close.swift`); without it, the
/// last reference going is the fallback. Operations are
/// synchronous and block on the disk while they commit. The ones that
/// commit or read at length (create, apply, revoke, sweep, compact, verify)
/// also have async forms that keep Swift's cooperative thread pool free
/// (`ShareStore+Async.swift`, docs/EMBEDDING.md "Threads and async").
public final class ShareStore: Sendable {
    public let path: String
    /// This replica's id: the one it was opened with, or the one the last
    /// `renewIdentity()` through this instance gave it.
    public var replicaID: ReplicaID { identity.withLock { $0.replica } }
    /// This store's epoch, under the same terms as `replicaID`.
    public var epoch: Epoch { identity.withLock { $0.epoch } }
    /// The replica id and epoch, read and renewed from any thread.
    let identity: Locked<(replica: ReplicaID, epoch: Epoch)>
    /// What this instance knows the high-water file holds (nil read-only),
    /// so that a read it already covers costs no file access
    /// (`ShareStore+HighWater.swift`).
    let highWater: Locked<HighWaterMark?>
    /// Held while this instance raises the high-water file.
    let highWaterRaise = Locked(())
    let environment: Environment
    let schema: Schema
    /// The store's time (`Options.clock`): what decides which shares are
    /// due, and what maintenance and its metrics are stamped with.
    public let clock: any WallClock
    let commitFeed = CommitFeed()
    /// Nil when `commit.signal` is missing or cannot be mapped (a read-only
    /// open of a store an older build made): commits then go unannounced
    /// to other processes, whose watchers fall back to their timeout.
    let commitSignal: CommitSignal?
    let commitWatcher: CommitWatcher
    /// Whether `close()` has begun, and the operations it waits for.
    let lifetime: StoreLifetime
    public let options: Options
    /// True when the `open(at:creatingIfMissing:)` that made this instance
    /// initialised the store; false when the store was already there.
    public let wasCreated: Bool
    /// Set when the `open` that made this instance upgraded the store from
    /// an older format (docs/FORMAT.md "Format 2, and the upgrade").
    public let upgrade: UpgradeReport?
    /// Set when the `open` that made this instance gave the store a new
    /// replica id and epoch because it may be a copy or a restore: its data
    /// file is not the one it was last opened in, or its log ends before
    /// what its high-water file says may have left it (`renewIdentity`).
    public let identityRenewal: IdentityRenewal?

    /// The named LMDB databases of a store, as `Schema` declares them, for a
    /// tool that opens the store's environment beside it (the benchmark
    /// reads its commit count): LMDB refuses a second open of a directory
    /// with another list. docs/FORMAT.md describes each database.
    public static var databaseNames: [String] { Schema.names }

    /// The store format this build writes (docs/FORMAT.md).
    public static var formatVersion: UInt32 { Schema.version }

    var log: EventLog { EventLog(schema: schema) }
    var projection: ShareProjection { ShareProjection(schema: schema) }

    /// How a store is opened.
    public struct Options: Sendable {
        /// Where "now" comes from.
        public var clock: any WallClock = SystemClock()
        /// The domain of App Clip links this store makes and accepts.
        public var linkDomain = AppClipDomain.standard
        /// LMDB settings; durable by default. Among them, group commit's
        /// `commitDelay` (how long the writer may wait for concurrent
        /// creates to share a commit; a lone writer never waits) and
        /// `idleReadTransactions` (read transactions kept for reuse). With
        /// `readOnly`, `open` writes nothing to the store and refuses a
        /// format-1 or format-2 one with `upgradeRequired` (`open(at:creatingIfMissing:options:)`).
        public var environment = Environment.Options()
        /// How long `commits()` sleeps on the commit signal before it reads
        /// the log's end anyway: what a lost signal costs at most (a writer
        /// killed between its commit and its signal, or a store directory
        /// where the signal's file cannot be made).
        public var commitWatchFallback = Duration.seconds(5)
        /// The replica id and epoch a store that this open creates takes,
        /// instead of new random ones; an open that finds a store keeps
        /// that store's own. For ShareSync's `SyncClientStore`, which
        /// announces a store's identity to a server before it makes the
        /// store, and which draws these at random: two stores must never
        /// share one (docs/SYNC.md "Identity"), so this is not public.
        package var identityIfCreated: (replica: ReplicaID, epoch: Epoch)?

        public init() {}
    }

    /// Opens the store at `path`.
    ///
    /// With `creatingIfMissing`, a directory holding no store gets a new
    /// one, initialised (format version, a new replica id and epoch) in one
    /// durable transaction; `wasCreated` then says so. Without it nothing is
    /// created.
    ///
    /// A format-1 or format-2 store is upgraded to format 3 in place, in one
    /// durable transaction, before `open` returns; `upgrade` then says so.
    /// From format 1 the upgrade replays the whole log: O(log) time, once;
    /// from format 2 it adds two empty databases: O(1).
    ///
    /// Opened for writing, a store that may be a copy of another or an
    /// older copy of itself takes a new replica id and epoch before it
    /// writes anything (`identityRenewal`, docs/SYNC.md "Identity"): its
    /// home (inodes and directory ctime) is not the one `meta` records, or
    /// its log ends before the position its high-water file says may have
    /// left it (`data.mdb` overwritten in place with an older copy). A store
    /// without a high-water file (made by an older build) gets one.
    ///
    /// Opened read-only (`options.environment.readOnly`), it writes nothing
    /// to the store: no upgrade, no high-water file, no identity renewal, no
    /// home recorded; `upgrade` and `identityRenewal` are nil, and the ids
    /// are the ones the store has (a copy takes its new ones at its next
    /// open for writing). LMDB still makes `lock.mdb`, its table of
    /// readers, when it is missing, and takes a slot in it, as every reader
    /// of the store does; that file holds pids and transaction ids, never
    /// records. This is the open for a reader that must leave the store as
    /// it found it (`sharelog verify`, `stats`, `log`, …).
    ///
    /// - Throws: `ShareLogError.storeNotFound` when nothing was initialised
    ///   at `path` and `creatingIfMissing` is false (read-only, also an
    ///   empty `data.mdb` or one without the store's databases, as an open
    ///   for writing killed half-way leaves it);
    ///   `unsupportedStoreVersion` for a store of a newer format;
    ///   `upgradeRequired` for a format-1 or format-2 store opened
    ///   read-only, which is left as it was.
    public static func open(at path: String, creatingIfMissing: Bool = false, options: Options = Options()) throws(ShareLogError) -> ShareStore {
        let dataFile = (path as NSString).appendingPathComponent("data.mdb")
        let dataSize = FileStatus.size(atPath: dataFile)
        guard creatingIfMissing || dataSize != nil else { throw ShareLogError.storeNotFound(path: path) }
        // An empty data file holds nothing a reader could find; a read-only
        // open could not start it (liblmdb fails with EBADF), and must not.
        if options.environment.readOnly, dataSize == 0 {
            throw ShareLogError.storeNotFound(path: path)
        }
        return try storage {
            let environment: Environment
            do {
                environment = try Environment.open(at: path, databases: Schema.names, options: options.environment)
            } catch let error as LMDBError where error == .notFound && options.environment.readOnly {
                // A read-only open needs every database to exist, and a
                // format-1 store has no `cursors`, a format-2 one no
                // `tokens`: say what it found.
                throw try readOnlyRefusal(at: path, options: options.environment) ?? error
            }
            do {
                return try finishOpening(at: path, in: environment, creatingIfMissing: creatingIfMissing, options: options)
            } catch {
                // A refused open gives its open of the environment back, so
                // the directory can be opened at once with other options.
                environment.release()
                throw error
            }
        }
    }

    /// The rest of `open(at:creatingIfMissing:options:)`, in the
    /// environment it opened.
    private static func finishOpening(
        at path: String, in environment: Environment, creatingIfMissing: Bool, options: Options
    ) throws -> ShareStore {
        let schema = try Schema(environment)
        let writable = !options.environment.readOnly
        let durable = options.environment.durability != .noSync
        // The home before this open made a missing high-water file or
        // commit signal: making one changes the directory's ctime, and
        // that change is this open's own, not a copy's.
        let homeBeforeSidecars: [UInt8]?
        if writable, !StoreSidecars.allExist(in: path) {
            // Nothing is made beside a store this build refuses.
            do { _ = try storedIdentity(in: environment, schema: schema, path: path) } catch ShareLogError.storeNotFound {}
            homeBeforeSidecars = try StoreSidecars.createMissing(
                in: path, durable: durable, mode: mode_t(options.environment.fileMode)
            ) { try homeIdentity(at: path) }
        } else {
            homeBeforeSidecars = nil
        }
        let home = try writable ? homeIdentity(at: path) : nil
        let created = try creatingIfMissing && environment.write { txn -> Bool in
            guard try !txn.contains(MetaKey.replica, in: schema.meta) else { return false }
            try txn.put(Key.bigEndian(Schema.version), forKey: MetaKey.schema, in: schema.meta)
            if let home { try txn.put(home, forKey: MetaKey.dataFile, in: schema.meta) }
            let identity = options.identityIfCreated ?? (ReplicaID.random(), Epoch.random())
            try txn.put(identity.replica.bytes, forKey: MetaKey.replica, in: schema.meta)
            try txn.put(identity.epoch.bytes, forKey: MetaKey.epoch, in: schema.meta)
            return true
        }
        let stored = try storedIdentity(in: environment, schema: schema, path: path)
        var upgrade: UpgradeReport?
        if StoreUpgrade.upgrades(stored.version) {
            guard writable else { throw ShareLogError.upgradeRequired(found: stored.version) }
            let replayed = try environment.write { txn in try StoreUpgrade(schema: schema).run(in: txn) }
            upgrade = replayed.map { UpgradeReport(fromVersion: stored.version, toVersion: Schema.version, eventsReplayed: $0) }
        }
        var identity = (replica: stored.replica, epoch: stored.epoch)
        var renewal: IdentityRenewal?
        if let home, stored.dataFile != home {
            renewal = try environment.write { txn -> IdentityRenewal? in
                // A store opened before its home was recorded (or in the
                // first, inode-only form) keeps its id; so does one whose
                // home changed only by this open's new sidecar files.
                let recorded = try txn.value(forKey: MetaKey.dataFile, in: schema.meta)
                guard recorded?.count == home.count, recorded != homeBeforeSidecars else {
                    try txn.put(home, forKey: MetaKey.dataFile, in: schema.meta)
                    return nil
                }
                return try renew(reason: .fileChanged, home: home, schema: schema, in: txn)
            }
        }
        var highWater: HighWaterMark?
        if let home {
            let settled = try settleHighWater(
                at: path, environment: environment, schema: schema, home: home, durable: durable, renewed: renewal != nil)
            renewal = settled.renewal ?? renewal
            highWater = settled.mark
        }
        if let renewal { identity = (renewal.replica, renewal.epoch) }
        return ShareStore(
            path: path, environment: environment, schema: schema, options: options,
            identity: identity, wasCreated: created, upgrade: upgrade, renewal: renewal, highWater: highWater)
    }

    /// The format version, replica id, epoch and data-file identity `meta`
    /// records, in one read (the upgrade changes none of them).
    ///
    /// - Throws: `storeNotFound` when the store was never initialised,
    ///   `corruptMeta` when the version is not a u32 or an id not 16 bytes,
    ///   and `unsupportedStoreVersion` for a newer format than this build's.
    private static func storedIdentity(
        in environment: Environment, schema: Schema, path: String
    ) throws -> (version: UInt32, replica: ReplicaID, epoch: Epoch, dataFile: [UInt8]?) {
        let stored = try environment.read { txn -> (UInt32?, [UInt8], [UInt8], [UInt8]?)? in
            guard let version = try txn.withValue(forKey: MetaKey.schema, in: schema.meta, { Key.integer($0, as: UInt32.self) }),
                  let replica = try txn.value(forKey: MetaKey.replica, in: schema.meta),
                  let epoch = try txn.value(forKey: MetaKey.epoch, in: schema.meta)
            else { return nil }
            return (version, replica, epoch, try txn.value(forKey: MetaKey.dataFile, in: schema.meta))
        }
        guard let (version, replica, epoch, dataFile) = stored else { throw ShareLogError.storeNotFound(path: path) }
        // Not a u32, or 0: no version this build could vouch for.
        guard let version, version > 0 else { throw ShareLogError.corruptMeta("schema") }
        guard version <= Schema.version else {
            throw ShareLogError.unsupportedStoreVersion(found: version, supported: Schema.version)
        }
        guard replica.count == 16 else { throw ShareLogError.corruptMeta("replica") }
        guard epoch.count == 16 else { throw ShareLogError.corruptMeta("epoch") }
        return (version, ReplicaID(bytes: replica), Epoch(bytes: epoch), dataFile)
    }

    private init(
        path: String, environment: Environment, schema: Schema, options: Options,
        identity: (replica: ReplicaID, epoch: Epoch), wasCreated: Bool, upgrade: UpgradeReport?, renewal: IdentityRenewal?,
        highWater: HighWaterMark?
    ) {
        self.path = path
        self.environment = environment
        self.schema = schema
        self.options = options
        self.clock = options.clock
        self.identity = Locked(identity)
        self.wasCreated = wasCreated
        self.upgrade = upgrade
        self.identityRenewal = renewal
        self.highWater = Locked(highWater)
        lifetime = StoreLifetime(path: path)
        commitSignal = CommitSignal(in: path, writable: !options.environment.readOnly)
        commitWatcher = CommitWatcher(signal: commitSignal, feed: commitFeed, fallback: options.commitWatchFallback)
    }

    /// The fallback when nobody called `close()`: the feeds end, the
    /// watcher stops, and this instance's open of the environment is given
    /// back; the environment closes when its last reference goes. The
    /// commit signal's lock goes with the signal.
    deinit {
        commitWatcher.stop()
        commitFeed.finish()
        if !lifetime.isClosed { environment.release(closingIfLast: false) }
    }

    /// The last log position after every commit that moved it, made by any
    /// process: first the current one, then each larger one (a slow reader
    /// skips to the newest). A follower reads `events(after:)` its cursor
    /// on each.
    ///
    /// A commit through this instance is announced as it returns; one by
    /// another process or instance through the commit signal (docs/SYNC.md
    /// "The commit signal"), after one thread wake and one read. A signal
    /// lost to a writer killed between its commit and its signal delays an
    /// announcement by at most `Options.commitWatchFallback`. The stream
    /// ends when the iterating task stops, when `close()` closes the
    /// store (after the last commit it waited for), or when the store goes.
    ///
    /// - Throws: `ShareLogError.closed` after `close()`.
    public func commits() throws(ShareLogError) -> AsyncStream<UInt64> {
        // One operation, so that `close()` ends the stream after this
        // subscribes, never before.
        try lifetime.run { () throws(ShareLogError) -> AsyncStream<UInt64> in
            let baseline = commitWatcher.baseline
            let positions = try commitFeed.subscribe { () throws(ShareLogError) in try read { txn in try log.lastPosition(in: txn) } }
            commitWatcher.start(from: baseline) { [weak self] in try? self?.lastPosition() }
            return positions
        }
    }

    /// Logs events made by this replica and projects them, in order, in `txn`.
    ///
    /// - Returns: the id the last of them was logged under; nil when
    ///   `kinds` is empty.
    @discardableResult
    func appendLocal(_ kinds: some Sequence<Event.Kind>, in txn: borrowing WriteTransaction) throws -> EventID? {
        var local = try LocalLog(schema: schema, in: txn)
        var projection = self.projection
        var last: EventID?
        for kind in kinds {
            let (event, position) = try local.append(kind, in: txn)
            try projection.apply(event, at: position, in: txn)
            last = event.id
        }
        try local.finish(in: txn)
        try projection.finish(in: txn)
        return last
    }

    /// The position of the log's last entry (0 for an empty log), read
    /// now: it sees commits from every process. O(log n).
    public func lastPosition() throws(ShareLogError) -> UInt64 {
        try read { txn in try log.lastPosition(in: txn) }
    }

    /// Log entries after log position `position` (0 for the whole log), at
    /// most `limit` of them and about `maxBytes` (always at least one if any
    /// follow). One short read transaction; call again with the last
    /// position to go on.
    public func events(after position: UInt64, limit: Int = 1000, maxBytes: Int = 4 << 20) throws(ShareLogError) -> [LoggedEvent] {
        guard position < .max else { return [] }
        return try read { txn in try log.entries(after: position, limit: limit, maxBytes: maxBytes, in: txn) }
    }
}
