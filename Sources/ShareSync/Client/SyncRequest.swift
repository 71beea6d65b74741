import ShareLog

/// What `SyncClient` is asked to do: where to connect, as which role, in
/// which directions, and with which key.
public struct SyncRequest: Sendable {
    /// Where the server is; `.stdio` talks over this process's standard
    /// input and output (`ssh host sharelog serve --stdio` on the other end).
    public var endpoint: Endpoint
    public var role: SyncRole = .main
    /// For `main`: pull, push, or both, and whether to follow. A clip has none.
    public var directions: SyncDirections = .pull
    /// For `clip`: the record names to fetch.
    public var names: [RecordName] = []
    /// The shared key: required over TCP (TLS), and by a server that has one.
    public var key: SyncKey?
    public var options = SessionOptions()

    public init(endpoint: Endpoint) { self.endpoint = endpoint }
}
