import Foundation
import Glibc

/// A real NATS JetStream cluster for tests: `size` `nats-server` processes
/// (Debian's /usr/sbin/nats-server) clustered on 127.0.0.1, each with its
/// config, log and JetStream store under `directory/nats-<i>/`; a size of 1
/// is one server with JetStream on its own (no cluster). Given a
/// `security`, the servers take clients only as it says; given an
/// `operatorMode`, they authenticate clients by NATS JWTs instead
/// (decentralized authentication: a user's `.creds` file).
///
/// `init` returns once the cluster's JetStream is ready (see
/// `waitUntilReady`); `kill` crashes one server, `restart` brings it back on
/// the same ports and store; `shutdown` (also run by `deinit`) stops and
/// reaps every server, so none outlives the test even when it fails.
///
/// Ports. Each server needs a client, a monitoring and a cluster port. They
/// are picked by binding 127.0.0.1:0 (`LoopbackSocket.freePorts`) and
/// closing, which reserves nothing: another process may bind one before
/// the server does. The harness is still correct, because a lost race can
/// never pass unnoticed: nats-server binds every listener itself at start
/// and exits with status 1 ("[FTL] ... address already in use") when it
/// cannot; Linux never lets two sockets listen on one address and port
/// (Go sets SO_REUSEADDR, not SO_REUSEPORT). So a server holding a
/// port it did not get does not exist. `init` sees the exit, stops the
/// others, wipes the directories and starts over with fresh ports, at most
/// `startAttempts` times. `restart` must keep its ports (the other servers'
/// routes name them); it retries briefly, since a port caught by a
/// short-lived outgoing connection is freed again, then throws
/// `NatsClusterError.portTaken`.
///
/// Not thread-safe: one thread drives a cluster.
public final class NatsCluster {
    public static let executable = "/usr/sbin/nats-server"
    /// How often `init` picks fresh ports after a server lost one.
    public static let startAttempts = 3
    /// How long `init` and `restart` wait for JetStream to be ready.
    public static let readyTimeout: Duration = .seconds(30)

    public let size: Int
    /// The cluster's name, and the prefix of its servers' names.
    public let name: String
    public let directory: String
    /// `"<name>-<i>"`: each server's `server_name`, as /jsz reports it.
    public let serverNames: [String]
    /// What the servers demand of clients; nil for plain `nats://` without auth.
    public let security: NatsClientSecurity?
    /// The operator and accounts whose JWTs the servers trust; nil when
    /// they take clients without JWTs.
    public let operatorMode: NatsOperatorMode?
    public private(set) var ports: [NatsServerPorts] = []
    /// The running process of each server; nil once killed or stopped.
    private var servers: [Subprocess?]
    /// What each server's finished runs wrote to standard output and error.
    private var earlierOutput: [[UInt8]]
    /// What each server's current run wrote to standard output so far.
    private var currentOutput: [[UInt8]]
    private var isShutDown = false

    /// Writes the configs, starts `size` servers and waits until the
    /// cluster's JetStream is ready. Throws `NatsClusterError` (with the
    /// servers' logs) when nats-server is missing, a server exits, or
    /// JetStream is not ready within `readyTimeout`; every server it
    /// started is stopped before it throws. `security` and `operatorMode`
    /// exclude each other: a cluster here authenticates clients one way,
    /// by a password in the URL or by JWTs.
    public init(
        size: Int = 3, in directory: String, name: String = "sharelog-test", security: NatsClientSecurity? = nil,
        operatorMode: NatsOperatorMode? = nil
    ) throws {
        precondition(size >= 1, "a cluster has at least one server")
        precondition(security == nil || operatorMode == nil, "a password (security) or JWTs (operatorMode), not both")
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw NatsClusterError.serverMissing(path: Self.executable)
        }
        self.size = size
        self.name = name
        self.directory = directory
        self.security = security
        self.operatorMode = operatorMode
        serverNames = (0..<size).map { "\(name)-\($0)" }
        servers = Array(repeating: nil, count: size)
        earlierOutput = Array(repeating: [], count: size)
        currentOutput = Array(repeating: [], count: size)
        for attempt in 1...Self.startAttempts {
            do {
                try start()
                return
            } catch NatsClusterError.portTaken(let index, let ports, let log) {
                stopAll()
                if attempt == Self.startAttempts { throw NatsClusterError.portTaken(index: index, ports: ports, log: log) }
            } catch {
                stopAll()
                throw error
            }
        }
    }

    deinit { shutdown() }

    /// `nats://127.0.0.1:<client port>`, one per server; with a
    /// `security`, `tls://user:password@127.0.0.1:<client port>`. In
    /// operator mode the URLs carry nothing: a client brings a `.creds` file.
    public var clientURLs: [String] {
        guard let security else { return ports.map { "nats://127.0.0.1:\($0.client)" } }
        return clientURLs(user: security.user, password: security.password)
    }

    /// `tls://user:password@127.0.0.1:<client port>`, one per server: what a
    /// client gives to authenticate as `user`, right or wrong.
    public func clientURLs(user: String, password: String) -> [String] {
        ports.map { "tls://\(user):\(password)@127.0.0.1:\($0.client)" }
    }

    /// All client URLs joined by commas: the server list a NATS client takes
    /// to connect, and reconnect, to any server of the cluster.
    public var serverURLList: String { clientURLs.joined(separator: ",") }

    /// The process id of server `index`; nil while it is killed or stopped.
    public func pid(_ index: Int) -> pid_t? { servers[index]?.pid }

    /// Sends SIGKILL to server `index`, as a crash would, and reaps it.
    /// Its ports refuse connections once this returns. No-op when it is
    /// not running.
    public func kill(_ index: Int) {
        guard let server = servers[index] else { return }
        server.kill()
        reap(index, server)
    }

    /// Starts server `index` again, after `kill`, with the same config,
    /// ports and store, and waits until the whole cluster is ready again
    /// (`waitUntilReady`): its /healthz is ok and its /jsz shows the meta
    /// leader the others show, and the leader sees it current.
    public func restart(_ index: Int) throws {
        guard !isShutDown else { throw NatsClusterError.notRestartable(index: index, reason: "the cluster was shut down") }
        guard servers[index] == nil else { throw NatsClusterError.notRestartable(index: index, reason: "it is still running; kill it first") }
        for attempt in 1...Self.startAttempts {
            try launch(index)
            do {
                return try waitUntilReady()
            } catch NatsClusterError.portTaken where attempt < Self.startAttempts {
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    /// Stops every server: SIGTERM, then SIGKILL to any still running
    /// after 10 s, and reaps each. Idempotent; `deinit` calls it. After it,
    /// `restart` throws.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        stopAll()
    }

    /// Server `index`'s log file, then whatever it wrote to standard output
    /// and error (startup failures that come before logging), for failure messages.
    public func logs(_ index: Int) -> String {
        if let server = servers[index] { drain(index, server) }
        let file = (try? String(contentsOfFile: logPath(index), encoding: .utf8)) ?? "(no log file at \(logPath(index)))\n"
        let pipes = String(decoding: earlierOutput[index] + currentOutput[index] + (servers[index]?.errorOutput ?? []), as: UTF8.self)
        return pipes.isEmpty ? file : file + "--- standard output and error ---\n" + pipes
    }

    /// Picks ports, writes fresh configs, launches every server and waits
    /// until the cluster is ready.
    private func start() throws {
        let free = try LoopbackSocket.freePorts(3 * size)
        ports = stride(from: 0, to: free.count, by: 3).map {
            NatsServerPorts(client: free[$0], monitor: free[$0 + 1], cluster: free[$0 + 2])
        }
        for index in 0..<size {
            let home = serverDirectory(index)
            try? FileManager.default.removeItem(atPath: home)
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try config(index).write(toFile: configPath(index), atomically: true, encoding: .utf8)
        }
        for index in 0..<size { try launch(index) }
        try waitUntilReady()
    }

    private func launch(_ index: Int) throws {
        servers[index] = try Subprocess(Self.executable, ["-c", configPath(index)], environment: [:])
    }

    /// SIGTERM to every running server, SIGKILL to those left at the deadline; reaps all.
    private func stopAll() {
        for server in servers.compactMap({ $0 }) { Glibc.kill(server.pid, SIGTERM) }
        let deadline = Deadline("nats-servers exit on SIGTERM", timeout: .seconds(10))
        while servers.contains(where: { $0?.isRunning == true }) && !deadline.hasPassed {
            Thread.sleep(forTimeInterval: 0.02)
        }
        for (index, server) in servers.enumerated() {
            guard let server else { continue }
            server.kill()
            reap(index, server)
        }
    }

    /// Waits for a killed, stopped or crashed server's exit, keeps what it
    /// printed, and forgets its process. A process SIGKILL cannot end in
    /// 10 s (stuck in the kernel) is left to `Subprocess.deinit`, which
    /// waits for it without a limit.
    func reap(_ index: Int, _ server: Subprocess) {
        try? Deadline.block(until: "nats-server \(index) is reaped", timeout: .seconds(10), every: .milliseconds(2)) { !server.isRunning }
        drain(index, server)
        earlierOutput[index] += currentOutput[index] + server.errorOutput
        currentOutput[index] = []
        servers[index] = nil
    }

    /// Reads what `server` wrote to standard output and error so far,
    /// without waiting, so its pipes never fill up and block it.
    func drain(_ index: Int, _ server: Subprocess) {
        while let chunk = server.readOutput(waitingAtMost: 0), !chunk.isEmpty {
            currentOutput[index] += chunk
        }
    }

    func serverDirectory(_ index: Int) -> String { (directory as NSString).appendingPathComponent("nats-\(index)") }
    func configPath(_ index: Int) -> String { (serverDirectory(index) as NSString).appendingPathComponent("nats-server.conf") }
    func logPath(_ index: Int) -> String { (serverDirectory(index) as NSString).appendingPathComponent("nats-server.log") }
    func runningServer(_ index: Int) -> Subprocess? { servers[index] }
}
