import ShareLog
import SharePrimitives

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
    /// One slot: the key of the address that holds it, and its theoretical
    /// arrival time in milliseconds.
    private typealias Slot = (key: UInt64, arrival: Int64)

    public let limit: RateLimit
    /// The shards, each its slots under a lock of its own.
    private let shards: [Locked<[Slot]>]
    private let slotsPerShard: Int
    private let seed = UInt64.random(in: .min ... .max)

    /// - Parameter slotCount: the table's size; memory is 16 bytes a slot.
    public init(_ limit: RateLimit, slotCount: Int = 1 << 16, shardCount: Int = 16) {
        self.limit = limit
        slotsPerShard = max(1, slotCount / shardCount)
        shards = (0..<shardCount).map { _ in Locked(Array(repeating: (UInt64.max, Int64.min), count: max(1, slotCount / shardCount))) }
    }

    /// Takes one request from `key`'s allowance at `now`: nil when it was
    /// allowed (and is now counted), or how long until it would be.
    ///
    /// Taking before the work, and `refund`ing what turns out not to count,
    /// keeps concurrent requests within the allowance: a check first and a
    /// take after would let every request in flight through the last slot.
    public func take(_ key: UInt64, at now: Timestamp) -> Duration? {
        withSlot(of: key) { slot -> Duration? in
            let arrival = max(slot.key == key ? slot.arrival : Int64.min, now.milliseconds)
            let ahead = arrival - now.milliseconds
            guard ahead <= tolerance else { return .milliseconds(ahead - tolerance) }
            slot = (key, arrival + interval)
            return nil
        }
    }

    /// Gives back one request `take` counted for `key`: the request turned
    /// out not to be the kind this limiter counts. A no-op when another
    /// address has taken the slot since.
    public func refund(_ key: UInt64) {
        withSlot(of: key) { slot in
            if slot.key == key { slot.arrival -= interval }
        }
    }

    /// The limit's interval in milliseconds (at least 1), and how far ahead
    /// of now an address's arrival time may run: the rest of the burst.
    private var interval: Int64 {
        max(1, limit.interval.wholeMilliseconds)
    }
    private var tolerance: Int64 { interval * Int64(limit.burst - 1) }

    /// Runs `body` on `key`'s slot under its shard's lock.
    private func withSlot<Result>(of key: UInt64, _ body: (inout Slot) -> Result) -> Result {
        let mixed = (key ^ seed) &* 0x9E37_79B9_7F4A_7C15
        let shard = shards[Int(mixed >> 60) % shards.count]
        let index = Int((mixed >> 20) % UInt64(slotsPerShard))
        return shard.withLock { slots in body(&slots[index]) }
    }
}
