/// The limits and timings of sync sessions, on either side. The defaults
/// suit a LAN or a local socket; tests shorten the timings.
public struct SessionOptions: Sendable {
    /// A side that has sent nothing for this long sends a heartbeat.
    public var heartbeatInterval: Duration = .seconds(5)
    /// A peer that has sent nothing, not a byte, heartbeats included, for
    /// this long is gone: the session ends and (in follow mode) the client
    /// reconnects. Bytes of a frame still arriving count, so a slow link
    /// that takes longer than this to carry one batch is not given up.
    /// It must exceed the *peer's* heartbeat interval, which is the peer's
    /// own setting (both default to these values).
    public var peerTimeout: Duration = .seconds(20)
    /// How long a server waits for a new connection to finish its
    /// handshake; a client that connects and says nothing is dropped then.
    public var handshakeTimeout: Duration = .seconds(5)
    /// How long a write may wait for a slow reader to take the next 64 KiB
    /// (`MessageChannel.stallPiece`) before the session is dropped: a
    /// reader that takes nothing is gone within this, and a slow one is
    /// given the time it needs. Only that session's thread waits.
    public var writeTimeout: Duration = .seconds(30)
    /// The largest frame payload accepted (`SyncProtocol.defaultMaxFrameBytes`).
    public var maxFrameBytes = SyncProtocol.defaultMaxFrameBytes
    /// The most bytes of events in one batch this side sends or asks for:
    /// well under the frame limit, so that a batch always fits.
    public var maxBatchBytes = 1 << 20
    /// How many unknown record names a client may ask for at once, across
    /// its connections, before a server delays its answers
    /// (`GuessingThrottle`).
    public var unknownFetchAllowance = 16
    /// How long a client takes to earn one unknown name back: the delay
    /// per unknown name past the allowance.
    public var unknownFetchDelay: Duration = .milliseconds(50)
    /// The longest delay of one answer.
    public var unknownFetchDelayCap: Duration = .seconds(2)
    /// How long a server keeps a clip's session that asks for nothing
    /// (heartbeats do not count): its place in the clips' pool is given up
    /// after this, with `error(idle)`.
    public var clipIdleTimeout: Duration = .seconds(10)
    /// How long a client keeps trying a server that answers `busy`, or
    /// that drops the connection before the handshake ends, with
    /// exponential backoff from 50 ms to 2 s and full jitter, before it
    /// reports the server busy (or the dropped connection).
    public var busyRetryWindow: Duration = .seconds(10)

    public init() {}
}
