import CBaseline
import Foundation
import ShareLog
import ShareSync

/// What the sync workloads share: the main store they serve, the peer
/// processes, and the receiving stores.
///
/// Every share is created at `BenchTime.start` for 30 days, and every
/// process's clock says `now`, an hour later, so every share is live
/// throughout, whatever today's date.
struct SyncBench {
    let context: BenchContext
    /// The clock of every store and peer, in ms.
    static let now = BenchTime.start + BenchTime.hour

    /// A main store at `path` holding one share per card of `deck` from 0
    /// to `count`, synced to disk and closed (`BenchContext.filledLoggedStore`).
    ///
    /// - Returns: the record names, in card order.
    func fillMain(at path: String, deck: CardDeck, count: Int) async throws -> [RecordName] {
        let (store, names) = try await context.filledLoggedStore(.shareLog, at: path, deck: deck, parts: [.live(count)])
        store.close()
        return ShareLogBenchStore.recordNames(from: names)
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
