import CBaseline
import Foundation
import ShareLog
import ShareSync

/// What the sync workloads share: the main store they serve, the peer
/// processes, and the receiving stores.
///
/// Every share is created within minutes of `BenchTime.start` for 30 days,
/// and every process's clock says `now`, an hour after that start, so every
/// share is live throughout, whatever today's date.
struct SyncBench {
    let context: BenchContext
    /// The clock of every store and peer, in ms.
    static let now = BenchTime.start + BenchTime.hour

    /// A main store at `path` holding one share per card of `deck` from 0
    /// to `count`, created in batches of 1,000, each batch a second after
    /// the one before (from `BenchTime.start`), as a store fills in use:
    /// creation times, and so expiry times, follow the log. Each share lives
    /// 30 days. Made without syncing, then synced to disk and closed.
    ///
    /// - Returns: the record names, in card order.
    func fillMain(at path: String, deck: CardDeck, count: Int) throws -> [RecordName] {
        context.remove(path)
        let clock = BenchClock()
        var options = ShareStore.Options()
        options.clock = clock
        options.environment.durability = .noSync
        var names: [RecordName] = []
        names.reserveCapacity(count)
        do {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
            for (batch, first) in stride(from: 0, to: count, by: 1000).enumerated() {
                clock.set(BenchTime.start + Int64(batch) * 1000)
                let cards = (first..<min(first + 1000, count)).map { deck.card($0) }
                names += try store.create(vCards: cards, ttl: .seconds(30 * 24 * 3600)).map(\.recordName)
            }
        }
        let rc = cb_fsync_directory(path)
        if rc != 0 { throw BenchError.io("fsync of \(path) failed: \(String(cString: strerror(rc)))") }
        return names
    }

    /// A new directory for Unix sockets, short enough for `sun_path` (107
    /// bytes) wherever the work directory is.
    static func socketDirectory() throws -> String {
        var template = Array("/tmp/slb-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError.io("mkdtemp /tmp/slb-XXXXXX: \(String(cString: strerror(errno)))") }
        return String(cString: made)
    }

    /// `sharelog-bench serve` on the store at `store`, listening on `socket`.
    func startServer(store: String, socket: String) throws -> PeerProcess {
        try PeerProcess(
            bench: context.executables.bench,
            ["serve", "--store", store, "--listen", "unix:\(socket)", "--now", String(Self.now)], what: "the main server")
    }

    /// `sharelog-bench follow` into `store`, pulling from `socket`.
    func startFollower(store: String, socket: String) throws -> PeerProcess {
        try PeerProcess(
            bench: context.executables.bench,
            ["follow", "--store", store, "--connect", "unix:\(socket)", "--now", String(Self.now)], what: "the follower")
    }

    /// A new durable store at `path`, as a replica would open it.
    static func openReplica(at path: String) throws -> ShareStore {
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: now))
        return try ShareStore.open(at: path, creatingIfMissing: true, options: options)
    }

    /// One pull session from `socket` into `store`, as `sharelog sync
    /// --pull` runs it; `progress` hears of each message handled.
    static func pull(from socket: String, into store: ShareStore, progress: ((SyncSummary) -> Void)? = nil) throws -> SyncSummary {
        try SyncClient.run(SyncRequest(endpoint: .unix(path: socket)), store: store, progress: progress)
    }
}
