import Foundation
import ShareLog
import ShareSync
import TestSupport

/// What the relay workload's parts share: a real 3-server JetStream
/// cluster on 127.0.0.1 (`NatsCluster`, Debian's nats-server; stopped by
/// `stop`, or by its `ClusterLifeline` if this process dies), the stream
/// key file of the run, of which every replica gets its own copy, and the
/// `sharelog-bench relay` peers.
///
/// Every relay runs at `SyncBench.now`, as every sync peer does: the key
/// stays at that hour and every share is live, whatever today's date.
///
/// Not thread-safe: one thread drives it, as one drives its cluster.
final class RelayBench {
    private let context: BenchContext
    private let directory: String
    private let cluster: NatsCluster
    /// Stops the cluster's servers should this process die.
    private let lifeline: ClusterLifeline
    /// The run's stream key file (`StreamKeyring.create`).
    private let key: String

    /// Starts the cluster under the work directory and makes the key.
    ///
    /// - Throws: `BenchError.process` when the cluster does not start (its
    ///   servers' logs say why); nothing is left running then.
    init(context: BenchContext) throws {
        self.context = context
        directory = (context.workDirectory as NSString).appendingPathComponent("relay-cluster")
        context.remove(directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let servers = (directory as NSString).appendingPathComponent("nats")
        let cluster: NatsCluster
        do {
            cluster = try NatsCluster(size: 3, in: servers, name: "sharelog-bench")
        } catch {
            context.remove(directory)
            throw BenchError.process("starting a 3-server NATS JetStream cluster: \(error)")
        }
        self.cluster = cluster
        do {
            lifeline = try ClusterLifeline(stopping: (0..<cluster.size).compactMap { cluster.pid($0) }, configsUnder: servers)
        } catch {
            cluster.shutdown()
            context.remove(directory)
            throw BenchError.process("starting the shell that stops the NATS cluster if the benchmark dies: \(error)")
        }
        key = (directory as NSString).appendingPathComponent("stream-key")
        do {
            try StreamKeyring.create(at: key, now: Timestamp(milliseconds: SyncBench.now))
        } catch {
            stop()
            throw BenchError.io("making the stream key: \(error)")
        }
    }

    deinit { stop() }

    /// "nats-server 2.9.10", from `nats-server --version`; nil when it is
    /// not installed or says no version.
    static func natsServerVersion() -> String? {
        guard FileManager.default.isExecutableFile(atPath: NatsCluster.executable),
              let outcome = try? Subprocess.run(NatsCluster.executable, ["--version"], timeout: .seconds(10)) else { return nil }
        // "nats-server: v2.9.10"
        let printed = String(decoding: outcome.output, as: UTF8.self)
        guard let version = printed.split(whereSeparator: \.isWhitespace).last, version.hasPrefix("v") else { return nil }
        return "nats-server \(version.dropFirst())"
    }

    /// Stops every server of the cluster and removes its directory; a
    /// second call does nothing more.
    func stop() {
        lifeline.release()
        cluster.shutdown()
        context.remove(directory)
    }

    /// The cluster's client URLs, for a connection of the benchmark's own.
    var servers: [String] { cluster.clientURLs }

    /// The CPU time the cluster's running servers have used, in seconds.
    func natsCPUSeconds() -> Double {
        (0..<cluster.size).compactMap { cluster.pid($0).flatMap(ProcStatus.cpuSeconds) }.reduce(0, +)
    }

    /// The path of `store`'s copy of the stream key: beside the store.
    static func keyPath(of store: String) -> String { store + ".stream-key" }

    /// Copies the run's stream key beside the store at `store` (mode
    /// 0600), as an operator copies it to each replica, replacing an
    /// earlier copy there.
    func copyKey(to store: String) throws {
        let copy = Self.keyPath(of: store)
        context.remove(copy)
        let data = try Data(contentsOf: URL(fileURLWithPath: key))
        guard FileManager.default.createFile(atPath: copy, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw BenchError.io("could not copy the stream key to \(copy)")
        }
    }

    /// `sharelog-bench relay` on the store at `store` (with its copy of the
    /// key), through the stream `stream` on subjects `<stream, lowercased>.>`;
    /// returns once it printed `ready`.
    func startRelay(store: String, stream: String, what: String) throws -> PeerProcess {
        try PeerProcess(
            bench: context.executables.bench,
            ["relay", "--store", store, "--nats", cluster.serverURLList, "--stream-key", Self.keyPath(of: store),
             "--stream", stream, "--subject-prefix", stream.lowercased(), "--now", String(SyncBench.now)],
            what: what)
    }

    /// How many of `shares` the store at `path` holds live with their
    /// card, at `SyncBench.now`.
    ///
    /// - Throws: `BenchError.mismatch` when its log holds other events
    ///   besides (each share is one creation, and nothing else happens).
    static func held(_ shares: [(name: RecordName, card: [UInt8])], in path: String) throws -> Int {
        let store = try SyncBench.openReplica(at: path)
        let now = Timestamp(milliseconds: SyncBench.now)
        let events = try store.stats(at: now).events
        var held = 0
        for share in shares {
            if case .live(let found) = try store.fetch(share.name, at: now), found.vCard == share.card { held += 1 }
        }
        guard events <= shares.count else { throw BenchError.mismatch("\(path) logs \(events) events for \(shares.count) shares") }
        return held
    }
}
