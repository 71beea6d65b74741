import ShareLog

/// The client side of sync: connects, shakes hands, and runs one session
/// (`run`), or keeps following with reconnects (`follow`).
public enum SyncClient {
    /// One session: connect, handshake, sync in the requested directions
    /// until both are caught up (or, with `.follow`, until `context` stops
    /// or the connection fails), then `bye`.
    ///
    /// When the server claims to hold more of this replica's own events
    /// than it made, the session is refused before any event is sent
    /// (`UnmadeEventsClaim`): this store keeps its id, whatever the
    /// server says.
    ///
    /// A server that answers `busy` (its pool for this role is full) is
    /// tried again, after a pause drawn at random up to 50 ms, doubling to
    /// 2 s (exponential backoff with full jitter, so that the clients a
    /// busy server turned away do not all come back at once), until
    /// `options.busyRetryWindow` has passed; then the `busy` is thrown. A
    /// connection the server closes or resets before the handshake ends is
    /// tried again the same way: that is how a server under a flood sheds
    /// the arrivals it cannot hold (docs/SYNC.md "Places"), and nothing
    /// happened on it yet.
    public static func run(
        _ request: SyncRequest, store: ShareStore, context: SessionContext = SessionContext(),
        progress: ((SyncSummary) -> Void)? = nil
    ) throws(SyncFailure) -> SyncSummary {
        try run(request, store: SyncClientStore(store), context: context, progress: progress)
    }

    /// `run(_:store:context:progress:)` for a `SyncClientStore`: a store
    /// that is open, or one made only once a server has accepted the
    /// session. A session that fails before that (no server at the
    /// endpoint, a command that cannot be run, a refused handshake) makes
    /// no store; `store.store` says whether one was made.
    public static func run(
        _ request: SyncRequest, store: SyncClientStore, context: SessionContext = SessionContext(),
        progress: ((SyncSummary) -> Void)? = nil
    ) throws(SyncFailure) -> SyncSummary {
        let giveUp = ContinuousClock.now + request.options.busyRetryWindow
        var ceilingMilliseconds = 50
        while true {
            var established = false
            do {
                return try session(request, store: store, context: context, progress: progress, established: &established)
            } catch where (error.isBusy || (!established && error.isConnectionLost)) && !context.isStopping {
                let pause = Duration.milliseconds(Int.random(in: 0...ceilingMilliseconds))
                guard ContinuousClock.now + pause < giveUp else { throw error }
                context.sleep(for: pause)
                ceilingMilliseconds = min(ceilingMilliseconds * 2, 2000)
            }
        }
    }

    /// One connection and its session. The store is asked for only once
    /// the server has accepted; a failure because a command's end of the
    /// pipes closed says how the command ended.
    ///
    /// `established` turns true once the handshake has ended.
    private static func session(
        _ request: SyncRequest, store source: SyncClientStore, context: SessionContext, progress: ((SyncSummary) -> Void)?,
        established: inout Bool
    ) throws(SyncFailure) -> SyncSummary {
        let channel = try connect(request)
        defer { channel.close() }
        do {
            return try session(request, over: channel, store: source, context: context, progress: progress, established: &established)
        } catch {
            guard let command = channel as? CommandChannel else { throw error }
            throw explained(error, command)
        }
    }

    private static func session(
        _ request: SyncRequest, over channel: any ByteChannel, store source: SyncClientStore, context: SessionContext,
        progress: ((SyncSummary) -> Void)?, established: inout Bool
    ) throws(SyncFailure) -> SyncSummary {
        let options = request.options
        let messages = MessageChannel(channel, maxFrameBytes: options.maxFrameBytes)
        let wake = try context.registeredSignal()
        defer { context.release(wake) }
        let deadline = ContinuousClock.now + options.handshakeTimeout
        let identity = source.identity
        let handshake = ClientHandshake(
            role: request.role, directions: request.role == .clip ? [] : request.directions, replica: identity.replica, epoch: identity.epoch,
            key: request.key, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        let (peer, store) = try HandshakeExchange.client(
            handshake, over: messages, store: { () throws(SyncFailure) in try source.opened() }, deadline: deadline)
        established = true
        let runner = try SessionRunner(
            store: store, messages: messages, peer: peer, isClient: true, options: options, wake: wake, context: context,
            fetch: request.names)
        return try withCommitWatch(store: store, context: context, when: request.directions.contains(.follow)) { () throws(SyncFailure) in
            try runner.run(progress: progress)
        }
    }

    /// `failure`, or, when it came from the command's end of the pipes
    /// closing, how the command ended (its exit status, or the signal
    /// that killed it), once it has: what a user can act on, rather than
    /// the pipes' descriptors.
    private static func explained(_ failure: SyncFailure, _ command: CommandChannel) -> SyncFailure {
        guard failure.isConnectionLost, let ended = command.ended(by: ContinuousClock.now + .seconds(2)) else { return failure }
        return .transport(.commandEnded(command: command.command, ended))
    }

    /// Runs sessions one after another until `context` stops: after a
    /// failure it waits (100 ms, doubling to 5 s, reset by a session that
    /// got through its handshake) and reconnects, resuming from the cursor
    /// the store committed. `onSession` hears of each session's end.
    public static func follow(
        _ request: SyncRequest, store: ShareStore, context: SessionContext,
        onSession: (Result<SyncSummary, SyncFailure>) -> Void, progress: ((SyncSummary) -> Void)? = nil
    ) {
        follow(request, store: SyncClientStore(store), context: context, onSession: onSession, progress: progress)
    }

    /// `follow(_:store:context:onSession:progress:)` for a
    /// `SyncClientStore`: a store to be made is made by the first session
    /// a server accepts, and synced by every session after it.
    public static func follow(
        _ request: SyncRequest, store: SyncClientStore, context: SessionContext,
        onSession: (Result<SyncSummary, SyncFailure>) -> Void, progress: ((SyncSummary) -> Void)? = nil
    ) {
        var backoff = Duration.milliseconds(100)
        var request = request
        request.directions.insert(.follow)
        while !context.isStopping {
            let result = Result { () throws(SyncFailure) in try run(request, store: store, context: context, progress: progress) }
            onSession(result)
            if case .success = result { backoff = .milliseconds(100) }
            guard !context.isStopping else { return }
            context.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(5))
        }
    }

    private static func connect(_ request: SyncRequest) throws(SyncFailure) -> any ByteChannel {
        let channel: (any ByteChannel)?
        do {
            channel = try open(request.endpoint, key: request.key, deadline: ContinuousClock.now + request.options.handshakeTimeout)
        } catch {
            throw .transport(error)
        }
        guard let channel else { throw .handshake(.notAuthenticated("TCP is encrypted with TLS under a shared key; pass --key-file")) }
        return channel
    }

    /// The channel to `endpoint`; nil for TCP without a key, which its TLS needs.
    private static func open(
        _ endpoint: Endpoint, key: SyncKey?, deadline: ContinuousClock.Instant
    ) throws(TransportError) -> (any ByteChannel)? {
        switch endpoint {
        case .stdio:
            return StdioChannel()
        case .command(let command):
            return try CommandChannel(command: command)
        case .unix:
            return try SocketChannel.connect(to: endpoint, deadline: deadline)
        case .tcp:
            guard let key else { return nil }
            let socket = try SocketChannel.connect(to: endpoint, deadline: deadline)
            do { return try TLSChannel.client(over: socket, key: key, deadline: deadline) } catch {
                socket.close()
                throw error
            }
        }
    }
}
