import CBaseline

/// A Redis master and a replica of it, both durable: the anchor of
/// ShareLog's sync between two processes. Two `redis-server`s this process
/// starts, each as `RedisBenchStore` does (AOF in its directory, no RDB
/// snapshots, stopped when this process closes them or dies); the master
/// also listens on a free TCP port of 127.0.0.1, since a replica connects
/// to its master over TCP only. The replica starts empty, with
/// `appendfsync always`, and becomes a replica in `fullSync`.
///
/// The C functions (hiredis) time their own work; see
/// `cb_redis_full_sync` and `cb_redis_replication_delays` in cbaseline.h
/// for what each clock covers.
final class RedisReplicaPair {
    /// The master. Fill it with `fill`, or use it as any `RedisBenchStore`.
    let master: RedisBenchStore
    /// The replica: empty until `fullSync`.
    let replica: RedisBenchStore

    /// A TTL no key reaches during a run: 30 days, in ms.
    static let farTTL: Int64 = 30 * 24 * 3600 * 1000

    /// What a replica's full sync took.
    struct FullSync {
        /// Seconds from `REPLICAOF` until the replica held every key.
        let loaded: Double
        /// Seconds from `REPLICAOF` until the replica's data was durable:
        /// the AOF rewrite Redis runs after a full sync had ended well.
        let persisted: Double
        /// Replication bytes the replica received until it held every key:
        /// the master's RDB, strings compressed with LZF.
        let bytes: Int
        /// Peak resident memory of the replica's process (VmHWM), KiB; nil
        /// when /proc did not say.
        let replicaPeakRSSKiB: Int?
    }

    /// One card's trip from the master to the replica.
    struct ReplicationDelay {
        /// The master's `SET`, from sending it to its reply, which comes
        /// after the master's fsync.
        let commitSeconds: Double
        /// From the master's reply to the replica's first `GET` reply that
        /// held the card, durable on the replica too.
        let delaySeconds: Double
    }

    /// Starts the master (unsynced, for filling) in `masterPath` and the
    /// empty, durable replica in `replicaPath`.
    init(masterPath: String, replicaPath: String) throws {
        master = try RedisBenchStore(path: masterPath, durable: false, loopback: true)
        replica = try RedisBenchStore(path: replicaPath, durable: true)
    }

    deinit { close() }

    /// Fills the master with one key per card of `deck` in
    /// `first ..< first + count` (`SET name card PX farTTL`, `batch` commands
    /// pipelined, new random names), then makes it durable. Not timed.
    ///
    /// - Returns: the keys' names, 16 bytes each, in card order.
    func fill(_ deck: CardDeck, first: Int, count: Int, batch: Int = 1000) throws -> [UInt8] {
        var names = [UInt8](repeating: 0, count: 16 * count)
        var elapsed: UInt64 = 0
        let rc = deck.withCCards(first: first, count: count) { cards in
            cb_redis_create(master.opened, cards, batch, 1, Self.farTTL, &names, &elapsed)
        }
        try master.check(rc)
        try master.makeDurable()
        return names
    }

    /// Makes the replica a replica of the master (`REPLICAOF`) and times its
    /// full sync until it holds `expectedKeys` keys and until that data is
    /// durable. The master must hold exactly `expectedKeys` keys.
    ///
    /// - Throws: `BenchError.baseline` when the replica holds another number
    ///   of keys, a rewrite fails, or either point is not reached within
    ///   `deadline` of `REPLICAOF`.
    func fullSync(expectedKeys: Int, deadline: Duration) throws -> FullSync {
        var result = cb_full_sync()
        try replica.check(
            cb_redis_full_sync(
                master.opened, replica.opened, UInt64(expectedKeys), RedisBenchStore.nanoseconds(deadline), &result))
        return FullSync(
            loaded: Double(result.loaded_ns) * 1e-9,
            persisted: Double(result.persisted_ns) * 1e-9,
            bytes: Int(result.bytes),
            replicaPeakRSSKiB: result.replica_peak_rss_kib >= 0 ? Int(result.replica_peak_rss_kib) : nil)
    }

    /// One new key per card of `deck` in `first ..< first + count`, one at a
    /// time: the master's durable `SET`, then `GET` on the replica in a
    /// tight loop until it holds the card. After `fullSync`.
    ///
    /// - Returns: the keys' names (16 bytes each) and one delay per card, in
    ///   card order.
    /// - Throws: `BenchError.baseline` when a key is not seen on the replica
    ///   within `deadline` of the master's reply, or another value is.
    func replicationDelays(_ deck: CardDeck, first: Int, count: Int, deadline: Duration) throws
        -> (names: [UInt8], delays: [ReplicationDelay])
    {
        var names = [UInt8](repeating: 0, count: 16 * count)
        var commits = [UInt64](repeating: 0, count: count)
        var delays = [UInt64](repeating: 0, count: count)
        let rc = deck.withCCards(first: first, count: count) { cards in
            cb_redis_replication_delays(
                master.opened, replica.opened, cards, Self.farTTL, RedisBenchStore.nanoseconds(deadline), &names, &commits,
                &delays)
        }
        try replica.check(rc)
        return (names, zip(commits, delays).map { ReplicationDelay(commitSeconds: Double($0) * 1e-9, delaySeconds: Double($1) * 1e-9) })
    }

    /// Stops both servers, the replica first. Closing twice does nothing.
    func close() {
        replica.close()
        master.close()
    }
}
