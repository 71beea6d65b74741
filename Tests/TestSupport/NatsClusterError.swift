/// Why a `NatsCluster` could not start, restart or become ready. Each
/// description says what to do and carries the servers' logs where they
/// explain it.
public enum NatsClusterError: Error, CustomStringConvertible {
    /// No executable `nats-server` at `path`.
    case serverMissing(path: String)
    /// Server `index` exited while it should have been running.
    case serverExited(index: Int, status: Int32, signaled: Bool, log: String)
    /// Server `index` could not listen: another process holds one of its
    /// ports. On `init` this happened on every attempt with fresh ports.
    case portTaken(index: Int, ports: NatsServerPorts, log: String)
    /// The cluster's JetStream was not ready within the deadline;
    /// `observed` is the last state seen, `logs` the servers' log tails.
    case notReady(what: String, observed: String, logs: String)
    /// `restart` of a server that is still running, or of any server after `shutdown`.
    case notRestartable(index: Int, reason: String)

    public var description: String {
        switch self {
        case .serverMissing(let path):
            "nats-server not found at \(path); install it with `apt-get install -y nats-server` (Debian package, v2.9 or later)"
        case .serverExited(let index, let status, let signaled, let log):
            "nats-server \(index) \(signaled ? "was ended by signal" : "exited with status") \(status); its log:\n\(log)"
        case .portTaken(let index, let ports, let log):
            "nats-server \(index) could not listen on 127.0.0.1 ports \(ports): another process holds one; "
                + "find it with `ss -ltnp` and stop it, or run again. Its log:\n\(log)"
        case .notReady(let what, let observed, let logs):
            "the NATS cluster did not become ready (\(what)); last seen: \(observed)\n\(logs)"
        case .notRestartable(let index, let reason):
            "cannot restart nats-server \(index): \(reason)"
        }
    }
}
