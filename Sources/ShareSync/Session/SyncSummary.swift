import ShareLog

/// What one session did, for `sharelog sync`'s summary and the server's
/// log line.
public struct SyncSummary: Sendable, Equatable {
    /// The other side, once the handshake named it.
    public var peer: ReplicaID?
    public var role: SyncRole = .main
    public var directions: SyncDirections = []
    /// Events that came in, and how many of them were new here.
    public var eventsReceived = 0
    public var eventsApplied = 0
    /// Events sent to the peer.
    public var eventsSent = 0
    /// Bytes on the wire, frames included.
    public var bytesIn = 0
    public var bytesOut = 0
    /// Snapshots this side took from the peer.
    public var snapshots = 0
    /// For a clip: the record names the server knew, and those it did not.
    public var found: [RecordName] = []
    public var unknown: [RecordName] = []

    public init() {}
}
