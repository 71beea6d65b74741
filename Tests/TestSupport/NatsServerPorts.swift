/// The three loopback TCP ports one `nats-server` of a `NatsCluster` listens on.
public struct NatsServerPorts: Sendable, Equatable {
    /// NATS clients connect here (`nats://127.0.0.1:client`).
    public let client: UInt16
    /// The HTTP monitoring endpoints (`/healthz`, `/jsz`).
    public let monitor: UInt16
    /// The other servers' routes connect here.
    public let cluster: UInt16

    public init(client: UInt16, monitor: UInt16, cluster: UInt16) {
        self.client = client
        self.monitor = monitor
        self.cluster = cluster
    }
}
