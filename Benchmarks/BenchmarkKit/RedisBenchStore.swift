import CBaseline

/// Redis as a team would keep short-lived shares in it: a `redis-server`
/// this process starts (`cb_redis_start`), its AOF in the store's directory
/// with `appendfsync always` when durable, one key per share (the record
/// name's 16 bytes) holding the card, set with `SET key card PX ttl`.
/// Expiry is Redis's own: `expire` measures it. The C functions (hiredis)
/// time their own work.
///
/// Closing the store stops the server, and so does dropping it; if this
/// process dies instead, the shell that runs the server stops it.
final class RedisBenchStore: BenchStore {
    let system = BenchSystem.redis
    private var handle: OpaquePointer?
    /// The memory of the server's data as it started, empty (`cb_redis_memory`).
    private let memoryAtStart: Int

    /// How long a new server may take to answer its first PING.
    static let startDeadline = Duration.seconds(30)

    /// What one expiry measurement saw.
    struct Expiry {
        /// Due keys that Redis removed before the deadline.
        let removed: Int
        /// Bytes the AOF grew by while they were removed.
        let written: Int
    }

    /// Starts a server with its data in `path`.
    ///
    /// - Parameters:
    ///   - durable: `appendfsync always`; false (`appendfsync no`) only to
    ///     fill the server before `makeDurable()`.
    ///   - loopback: also listen on a free TCP port of 127.0.0.1
    ///     (`cb_redis_start_loopback`), as the master of a replica must.
    init(path: String, durable: Bool, loopback: Bool = false) throws {
        var error = [CChar](repeating: 0, count: 512)
        let start = loopback ? cb_redis_start_loopback : cb_redis_start
        let started = start(
            try RedisServer.executable(), path, durable ? 1 : 0, Self.nanoseconds(Self.startDeadline), &error, error.count)
        guard let started else {
            throw BenchError.baseline(.redis, String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        let memory = cb_redis_memory(started)
        guard memory >= 0 else {
            let reason = String(cString: cb_redis_error(started))
            cb_redis_stop(started)
            throw BenchError.baseline(.redis, reason)
        }
        handle = started
        memoryAtStart = Int(memory)
    }

    deinit { close() }

    /// The server's handle, for the C calls of this file's extensions and
    /// of `RedisReplicaPair`.
    var opened: OpaquePointer {
        guard let handle else { preconditionFailure("the Redis server was stopped") }
        return handle
    }

    /// Throws the store's own account of a failed call.
    func check(_ rc: Int32) throws {
        guard rc != 0 else { return }
        throw BenchError.baseline(.redis, String(cString: cb_redis_error(opened)))
    }

    func checked(_ value: Int64) throws -> Int {
        try check(value < 0 ? -1 : 0)
        return Int(value)
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(duration.components.seconds) * 1_000_000_000 + UInt64(duration.components.attoseconds / 1_000_000_000)
    }

    /// One `SET key card PX ttl` per share: one command at a time for
    /// `batch` 1, else `batch` pipelined commands, from `creators` threads
    /// each on its own connection. Redis stamps its own clock on the keys,
    /// so `createdAt` plays no part.
    func create(
        _ deck: CardDeck, first: Int, count: Int, batch: Int, creators: Int, createdAt: Int64, ttl: Int64
    ) async throws -> Timed<[UInt8]> {
        var names = [UInt8](repeating: 0, count: 16 * count)
        var elapsed: UInt64 = 0
        let rc = deck.withCCards(first: first, count: count) { cards in
            cb_redis_create(opened, cards, batch, Int32(creators), ttl, &names, &elapsed)
        }
        try check(rc)
        return Timed(value: names, seconds: Double(elapsed) * 1e-9)
    }

    /// One `GET` per name. Redis decides expiry by its own clock, so `now`
    /// plays no part: a key past its TTL is missing, never "expired".
    func fetch(_ names: [UInt8], threads: Int, at now: Int64) throws -> Timed<FetchTally> {
        var tally = cb_fetch_tally()
        var elapsed: UInt64 = 0
        try check(cb_redis_fetch(opened, names, names.count / 16, Int32(threads), &tally, &elapsed))
        return Timed(
            value: FetchTally(live: Int(tally.live), expired: Int(tally.expired), missing: Int(tally.missing), bytes: Int(tally.bytes)),
            seconds: Double(elapsed) * 1e-9)
    }

    /// Redis does not count its fsyncs.
    func commitCount() -> Int? { nil }

    /// The AOF's size: the server only appends to it (no rewrite runs).
    func bytesWritten() throws -> Int { try checked(cb_redis_aof_bytes(opened)) }

    /// fsyncs what the fill wrote, then sets `appendfsync always`.
    func makeDurable() throws { try check(cb_redis_make_durable(opened)) }

    /// How much the memory of the server's data (`used_memory` less the
    /// connections' buffers) grew since it started, in bytes.
    func memoryGrowth() throws -> Int { try checked(cb_redis_memory(opened)) - memoryAtStart }

    /// How long after the first of `keys` due keys is sent they all fall
    /// due, in ms: a second, plus 20 µs a key, four times what a pipelined
    /// `SET` of a 1 KB card takes on the benchmark's machine (about 200,000
    /// a second), so that writing and syncing them is over first.
    static func dueDelay(keys: Int) -> Int64 { 1000 + Int64(keys) / 50 }

    /// Writes one key per card of `deck` in `first ..< first + count`, all
    /// falling due at one moment (`dueDelay`), makes the server durable, and
    /// times Redis's active expiry from that moment until the keys are gone
    /// or `deadline` has passed. The keys already held must not fall due.
    func expire(_ deck: CardDeck, first: Int, count: Int, batch: Int, deadline: Duration) throws -> Timed<Expiry> {
        var removed: UInt64 = 0
        var elapsed: UInt64 = 0
        var written: UInt64 = 0
        let rc = deck.withCCards(first: first, count: count) { cards in
            cb_redis_expire(
                opened, cards, batch, Self.dueDelay(keys: count), Self.nanoseconds(deadline), &removed, &elapsed, &written)
        }
        try check(rc)
        return Timed(value: Expiry(removed: Int(removed), written: Int(written)), seconds: Double(elapsed) * 1e-9)
    }

    func close() {
        guard let handle else { return }
        cb_redis_stop(handle)
        self.handle = nil
    }
}
