import Glibc
import SharePrimitives

/// A connected stream socket (Unix or TCP) as a `ByteChannel`.
///
/// The descriptor is non-blocking and close-on-exec; waits happen in
/// `poll`, bounded by each call's deadline. Writes use `MSG_NOSIGNAL`, so a
/// closed peer gives `TransportError.peerClosed` and never raises `SIGPIPE`.
/// `EINTR` is retried. A write asked to read ahead keeps what the peer
/// sends while it waits for room (`ReadAhead`), and reads return it first.
///
/// Not `Sendable`: it belongs to one thread at a time (`ByteChannel`'s
/// contract), which debug builds check on every call.
public final class SocketChannel: ByteChannel {
    public let description: String
    /// Who is at the other end, for limits that count per client: its
    /// address without the port over TCP (`tcp:127.0.0.1`), its user on a
    /// Unix socket (`uid 1000`); the endpoint for a client's own channel.
    let client: String
    /// The socket; -1 once closed.
    private(set) var descriptor: Int32
    /// What the peer sent while a write waited for room.
    private var readAhead = ReadAhead()
    /// The thread that may use the channel.
    private var owner = OwningThread()

    /// Takes ownership of `descriptor`, a connected non-blocking socket.
    init(adopting descriptor: Int32, peer: String, client: String? = nil) {
        self.descriptor = descriptor
        description = peer
        self.client = client ?? peer
    }

    /// Whichever thread drops the last reference is alone with the channel.
    deinit {
        owner.adoptCurrent()
        close()
    }

    public func adoptOnCurrentThread() {
        owner.adoptCurrent()
    }

    /// Connects to a `unix:` or `tcp:` endpoint. The connection attempt waits
    /// until `deadline`, then throws `TransportError.timedOut`. A `tcp:`
    /// connection is plain: wrap it in `TLSChannel.client(over:key:deadline:)`.
    ///
    /// Errors name the cause: `.connectionRefused` (nothing listens),
    /// `.noSuchSocket` (no file at a `unix:` path), `.timedOut`, and
    /// `.stdioIsNotASocket`.
    public static func connect(
        to endpoint: Endpoint, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> SocketChannel {
        let address = try SocketAddress(endpoint)
        let channel = SocketChannel(adopting: try Posix.streamSocket(address.family), peer: endpoint.description)
        try channel.finishConnecting(to: endpoint, address: address, deadline: deadline)
        switch endpoint {
        case .tcp: channel.disableNagle()
        case .unix(let path): try channel.checkServerIsThisUser(path: path)
        default: break
        }
        return channel
    }

    /// Runs the non-blocking `connect` to its end. A Unix socket whose
    /// server has a full backlog answers `EAGAIN` at once; the attempt is
    /// repeated every 10 ms until the deadline.
    private func finishConnecting(
        to endpoint: Endpoint, address: SocketAddress, deadline: ContinuousClock.Instant?
    ) throws(TransportError) {
        while true {
            let result = address.withSockaddr { Glibc.connect(descriptor, $0, $1) }
            if result == 0 { return }
            switch errno {
            case EINTR, EINPROGRESS:
                guard try Posix.wait(descriptor, for: Int16(POLLOUT), deadline: deadline) else {
                    throw .timedOut(waitingFor: "\(endpoint) to accept the connection")
                }
                var failure: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else {
                    throw .system(operation: "getsockopt(SO_ERROR)", errno: errno)
                }
                if failure == 0 { return }
                throw Self.connectError(failure, endpoint)
            case EAGAIN:
                guard Posix.pollTimeout(until: deadline) != nil else {
                    throw .timedOut(waitingFor: "\(endpoint) to accept the connection (its backlog is full)")
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
            case let failure:
                throw Self.connectError(failure, endpoint)
            }
        }
    }

    /// Refuses a Unix socket whose server runs as another user than this
    /// process (root's servers excepted): in a directory others can write,
    /// such as /tmp, another user could have bound the path first, and a
    /// main replica would push its cards to them. The kernel's record of
    /// the server (`SO_PEERCRED`, taken at its `listen`) is checked on the
    /// connected socket itself, so no file can be swapped in between.
    private func checkServerIsThisUser(path: String) throws(TransportError) {
        guard let credentials = PeerCredentials(of: descriptor) else {
            throw .system(operation: "getsockopt(SO_PEERCRED) on \(path)", errno: errno)
        }
        guard credentials.uid != geteuid(), credentials.uid != 0 else { return }
        close()
        throw .socketOfAnotherUser(path: path, uid: credentials.uid)
    }

    private static func connectError(_ code: Int32, _ endpoint: Endpoint) -> TransportError {
        switch (code, endpoint) {
        case (ECONNREFUSED, _): .connectionRefused(endpoint)
        case (ENOENT, .unix(let path)): .noSuchSocket(path: path)
        case (ETIMEDOUT, _): .timedOut(waitingFor: "\(endpoint) to accept the connection")
        default: .system(operation: "connect to \(endpoint)", errno: code)
        }
    }

    /// Sets `TCP_NODELAY`: frames are sent as soon as they are written, so
    /// a follower sees a commit without Nagle's delay.
    func disableNagle() {
        owner.check(description)
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) -> Int {
        precondition(!buffer.isEmpty, "read(into:) needs room for at least one byte")
        owner.check(description)
        if let count = try readAhead.take(into: buffer) { return count }
        while true {
            guard descriptor >= 0 else { throw .channelClosed }
            switch Posix.read(descriptor, into: buffer) {
            case .transferred(let count):
                return count
            case .wouldBlock:
                guard try Posix.wait(descriptor, for: Int16(POLLIN), deadline: deadline) else {
                    throw .timedOut(waitingFor: "data from \(description)")
                }
            case .failed(let code):
                throw failure(code, "read from")
            }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) {
        try write(bytes, deadline: deadline, readingAhead: 0)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?, readingAhead limit: Int) throws(TransportError) {
        owner.check(description)
        var offset = 0
        while offset < bytes.count {
            guard descriptor >= 0 else { throw .channelClosed }
            switch Posix.send(descriptor, UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .transferred(let count):
                offset += count
            case .wouldBlock:
                let socket = descriptor
                switch try Posix.waitWritable(socket, orReadable: readAhead.wants(upTo: limit) ? socket : nil, deadline: deadline) {
                case .writable: continue
                case .readable: readAhead.fill(upTo: limit, { Posix.read(socket, into: $0) }, failure: { failure($0, "read from") })
                case .timedOut: throw .timedOut(waitingFor: "\(description) to take the bytes written to it")
                }
            case .failed(let code):
                throw failure(code, "write to")
            }
        }
    }

    public func waitReadable(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(TransportError) -> ChannelReadiness {
        owner.check(description)
        guard descriptor >= 0 else { throw .channelClosed }
        if !readAhead.isEmpty { return .readable }
        return try Posix.waitReadable(descriptor, orWake: wake, deadline: deadline)
    }

    public func close() {
        owner.check(description)
        guard descriptor >= 0 else { return }
        Posix.close(descriptor)
        descriptor = -1
    }

    private func failure(_ code: Int32, _ operation: String) -> TransportError {
        switch code {
        case EPIPE: .peerClosed(peer: description)
        case ECONNRESET: .connectionReset(peer: description)
        default: .system(operation: "\(operation) \(description)", errno: code)
        }
    }
}
