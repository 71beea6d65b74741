import ShareLog
import SampleCards

/// Stores for the fault tests, built in-process for speed, at a fixed time.
enum FaultStore {
    /// When every share of these stores was created.
    static let created = Timestamp(iso8601: "2026-12-01T10:00:00Z")!

    /// Creates a store at `path` holding `shares` sample cards, each with a
    /// photo of `photoBytes` bytes, made in transactions of `batch` cards.
    /// Returns the number of events in its log: one per share.
    @discardableResult
    static func build(at path: String, shares: Int, photoBytes: Int? = nil, batch: Int = 500) throws -> Int {
        var options = ShareStore.Options()
        options.clock = FixedClock(created)
        let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
        var made = 0
        while made < shares {
            let count = min(batch, shares - made)
            _ = try store.create(vCards: (made..<made + count).map { SampleCard.make(index: $0, photoBytes: photoBytes) })
            made += count
        }
        return made
    }
}
