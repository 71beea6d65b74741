import ShareLog
import Synchronization

/// Per-address rate limits in a fixed amount of memory, whatever the
/// number of addresses: the generic cell rate algorithm (one "theoretical
/// arrival time" per address) in a direct-mapped table of `slotCount`
/// slots, split into shards that each have their own lock.
///
/// An address takes the slot its keyed hash names. When another address
/// holds it, the newcomer takes it over with a full burst: a flood of
/// addresses can reset a bucket, never grow the table. The hash key is
/// random per process, so nobody can aim at another's slot.
///
/// Thread-safe; each call takes one shard's lock for O(1).
public final class RateLimiter: Sendable {
    public let limit: RateLimit
    private let shards: [Shard]
    private let slotsPerShard: Int
    private let seed = UInt64.random(in: .min ... .max)

    private final class Shard: Sendable {
        /// Each slot: the key of the address that holds it, and its
        /// theoretical arrival time in milliseconds.
        let slots: Mutex<[(key: UInt64, arrival: Int64)]>
        init(count: Int) { slots = Mutex(Array(repeating: (UInt64.max, Int64.min), count: count)) }
    }

    /// - Parameter slotCount: the table's size; memory is 16 bytes a slot.
    public init(_ limit: RateLimit, slotCount: Int = 1 << 16, shardCount: Int = 16) {
        self.limit = limit
        slotsPerShard = max(1, slotCount / shardCount)
        shards = (0..<shardCount).map { _ in Shard(count: max(1, slotCount / shardCount)) }
    }

    /// Takes one request from `key`'s allowance at `now`: nil when it was
    /// allowed, or how long until it would be.
    public func take(_ key: UInt64, at now: Timestamp) -> Duration? {
        update(key, at: now, consume: true)
    }

    /// Whether `key` could make a request at `now`: nil when yes, or how
    /// long until it could. Takes nothing.
    public func check(_ key: UInt64, at now: Timestamp) -> Duration? {
        update(key, at: now, consume: false)
    }

    private func update(_ key: UInt64, at now: Timestamp, consume: Bool) -> Duration? {
        let interval = Int64(limit.interval.components.seconds) * 1000 + limit.interval.components.attoseconds / 1_000_000_000_000_000
        let tolerance = interval * Int64(limit.burst - 1)
        let mixed = (key ^ seed) &* 0x9E37_79B9_7F4A_7C15
        let shard = shards[Int(mixed >> 60) % shards.count]
        let index = Int((mixed >> 20) % UInt64(slotsPerShard))
        return shard.slots.withLock { slots -> Duration? in
            var arrival = slots[index].key == key ? slots[index].arrival : Int64.min
            arrival = max(arrival, now.milliseconds)
            let ahead = arrival - now.milliseconds
            guard ahead <= tolerance else { return .milliseconds(ahead - tolerance) }
            if consume { slots[index] = (key, arrival + max(interval, 1)) }
            return nil
        }
    }
}
