import SampleCards
import ShareLog

/// Builds a store in this process, for speed: shares made in batches, one
/// transaction each, without fsync (scratch data; nothing here checks
/// durability), at a fixed clock. The store is closed when `build`
/// returns, before any `sharelog` process opens it.
enum SeedStore {
    /// The clock of every seeded store: its shares are created at this time.
    static let createdAt = Timestamp(iso8601: "2026-12-01T10:00:00Z")!

    /// Opens (creating) the store at `path`, runs `body` on it, closes it.
    static func build<R>(at path: String, _ body: (ShareStore) throws -> R) throws -> R {
        var options = ShareStore.Options()
        options.clock = FixedClock(createdAt)
        options.environment.durability = .noSync
        let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
        return try body(store)
    }

    /// Creates the store at `path` with one share, of the default TTL, for
    /// each of `count` sample cards (`SampleCard.make(index:)` for 0 up to
    /// `count`), each with a photo of `photoBytes` bytes. Returns their
    /// record names in index order; the store's log holds one event each.
    static func build(at path: String, sampleCards count: Int, photoBytes: Int? = nil) throws -> [RecordName] {
        try build(at: path) { store in
            try create((0..<count).map { SampleCard.make(index: $0, photoBytes: photoBytes) }, in: store)
        }
    }

    /// Creates one share for each of `cards`, 1,000 a transaction, and
    /// returns their record names in the order of `cards`.
    static func create(_ cards: [[UInt8]], ttl: Duration = ShareStore.defaultTTL, in store: ShareStore) throws -> [RecordName] {
        var names: [RecordName] = []
        var start = 0
        while start < cards.count {
            let batch = Array(cards[start..<min(start + 1000, cards.count)])
            names += try store.create(vCards: batch, ttl: ttl).map(\.recordName)
            start += batch.count
        }
        return names
    }
}
