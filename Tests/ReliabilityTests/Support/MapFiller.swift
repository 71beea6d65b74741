import SampleCards
import Testing
@testable import ShareLog

/// Fills a store's map with live shares until at most `slack` bytes of it
/// are unused.
///
/// With `MDB_WRITEMAP` the LMDB module preallocates the whole map on disk,
/// so a write that fits in the map cannot meet a full disk: only one that
/// needs the map to grow can. The disk-full tests fill the map first, so
/// that the operation they test is the one that needs the growth.
enum MapFiller {
    /// Creates shares of cards `firstIndex, firstIndex + 1, …`, each living
    /// `ttl`, through `store` whose clock says `now`, until the map has at
    /// most `slack` bytes unused; returns them in creation order.
    static func fill(
        _ store: ShareStore, leaving slack: Int, firstIndex: Int, ttl: Duration, now: Timestamp
    ) throws -> [KnownShare] {
        var shares: [KnownShare] = []
        for index in firstIndex..<firstIndex + 20_000 {
            let stats = try store.stats(at: now)
            if stats.mapBytes - stats.usedBytes <= slack { return shares }
            shares.append(try KnownShare.create(SampleCard.make(index: index), ttl: ttl, now: now, in: store))
        }
        Issue.record("20,000 shares did not fill the map to within \(slack) bytes")
        return shares
    }
}
