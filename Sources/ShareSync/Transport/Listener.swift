import Glibc
import SharePrimitives

/// A listening Unix or TCP socket that accepts sync connections.
///
/// - `unix:PATH`: the socket file is created with mode 0600, so only this
///   user can connect. A path that holds a live socket (a server accepts on
///   it) is refused with `.addressInUse`, and one that holds anything but a
///   socket with `.notASocket`; a stale socket file, left by a server that
///   died, is replaced. A socket is live when a connection to it is
///   accepted, so the server there sees that probe as a connection that
///   ends before sending anything. `close()` removes the file, if it is still this
///   listener's.
/// - `tcp:HOST:PORT`: binds HOST (127.0.0.1 for `tcp:PORT`); port 0 takes a
///   free port, and `endpoint` reports the one taken. Connections are plain
///   TCP: wrap each in `TLSChannel.server(over:context:deadline:)`.
///
/// Not `Sendable`: like a channel, it belongs to one thread, the one that
/// made it, or the one it was handed to (`sending`) that then called
/// `adoptOnCurrentThread()`; debug builds check every call. To stop an
/// accept loop, wake it with `waitAcceptable(orWake:deadline:)` and let
/// its own thread close the listener; a server whose stop comes on another
/// thread hands the listener to it (the HTTP gateway's `stop`).
public final class Listener {
    /// Where the listener accepts: the endpoint it was given, with the port
    /// actually bound for `tcp:HOST:0`.
    public let endpoint: Endpoint
    /// The listening socket, non-blocking; -1 once closed. Readable to the
    /// server, which polls it beside the connections it holds.
    private(set) var descriptor: Int32

    /// The listening socket, for a server library that accepts on it
    /// itself (the HTTP gateway's libmicrohttpd). The listener still owns
    /// it: the borrower never closes it, and stops accepting before
    /// `close()`.
    package var listeningDescriptor: Int32 { descriptor }
    /// The socket file of a `unix:` listener and its identity, so that
    /// `close()` removes this listener's file and never a successor's.
    private let socketFile: SocketFile?
    /// The thread that may use the listener.
    private var owner = OwningThread()

    /// Starts listening at `endpoint` with room for `backlog` connections
    /// that are not accepted yet.
    public init(listeningOn endpoint: Endpoint, backlog: Int32 = 128) throws(TransportError) {
        let address = try SocketAddress(endpoint)
        if case .unix(let path) = endpoint { try SocketFile.clearStale(at: path, endpoint: endpoint) }
        let descriptor = try Posix.streamSocket(address.family)
        var socketFile: SocketFile?
        do throws(TransportError) {
            (self.endpoint, socketFile) = try Self.bind(descriptor, to: address, endpoint: endpoint)
            guard Glibc.listen(descriptor, backlog) == 0 else { throw .system(operation: "listen on \(endpoint)", errno: errno) }
        } catch {
            socketFile?.remove()
            Posix.close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.socketFile = socketFile
    }

    /// Whichever thread drops the last reference is alone with the listener.
    deinit {
        owner.adoptCurrent()
        close()
    }

    /// Makes the calling thread the listener's owner, the one thread that
    /// may use it from now on: call it on the thread it was handed to.
    public func adoptOnCurrentThread() {
        owner.adoptCurrent()
    }

    /// Binds `descriptor`; returns the endpoint actually bound and, for
    /// `unix:`, the socket file, checked to be mode 0600.
    private static func bind(
        _ descriptor: Int32, to address: SocketAddress, endpoint: Endpoint
    ) throws(TransportError) -> (Endpoint, SocketFile?) {
        switch endpoint {
        case .unix(let path):
            // Linux gives the socket file the socket's own mode (less the
            // umask), so the file is never open to others, not even between
            // bind and a later chmod.
            guard fchmod(descriptor, 0o600) == 0 else { throw .system(operation: "fchmod of the socket", errno: errno) }
            try bindAddress(descriptor, address, endpoint)
            let file = try SocketFile(boundAt: path)
            return (endpoint, file)
        case .tcp(let host, _):
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            try bindAddress(descriptor, address, endpoint)
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0, case .tcp(_, let port) = SocketAddress.endpoint(of: storage) else {
                throw .system(operation: "getsockname on \(endpoint)", errno: errno)
            }
            return (.tcp(host: host, port: port), nil)
        case .stdio, .command:
            throw .stdioIsNotASocket
        }
    }

    private static func bindAddress(_ descriptor: Int32, _ address: SocketAddress, _ endpoint: Endpoint) throws(TransportError) {
        guard address.withSockaddr({ Glibc.bind(descriptor, $0, $1) }) != 0 else { return }
        throw errno == EADDRINUSE ? .addressInUse(endpoint) : .system(operation: "bind to \(endpoint)", errno: errno)
    }

    /// Accepts the next connection, waiting until `deadline` (then
    /// `TransportError.timedOut`). The channel's description names the
    /// peer: its address for TCP, its process and user for a Unix socket.
    /// The listener keeps no reference to it: it may be handed to another
    /// thread (`sending`).
    public func accept(deadline: ContinuousClock.Instant?) throws(TransportError) -> sending SocketChannel {
        owner.check("the listener at \(endpoint)")
        while true {
            guard descriptor >= 0 else { throw .channelClosed }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let connection = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Posix.accept(descriptor, $0, &length)
                }
            }
            if connection >= 0 { return Self.channel(for: connection, address: storage, at: endpoint) }
            switch errno {
            case EINTR, ECONNABORTED:
                continue
            case EAGAIN, EWOULDBLOCK:
                guard try Posix.wait(descriptor, for: Int16(POLLIN), deadline: deadline) else {
                    throw .timedOut(waitingFor: "a connection at \(endpoint)")
                }
            case let code:
                throw .system(operation: "accept on \(endpoint)", errno: code)
            }
        }
    }

    private static func channel(for connection: Int32, address: sockaddr_storage, at endpoint: Endpoint) -> SocketChannel {
        switch endpoint {
        case .unix:
            guard let credentials = PeerCredentials(of: connection) else {
                return SocketChannel(adopting: connection, peer: endpoint.description, client: "an unknown user")
            }
            return SocketChannel(
                adopting: connection, peer: "\(endpoint) (pid \(credentials.pid), uid \(credentials.uid))", client: "uid \(credentials.uid)")
        default:
            let peer = SocketAddress.endpoint(of: address)
            let client = if case .tcp(let host, _) = peer { "tcp:\(host)" } else { "a TCP peer" }
            let channel = SocketChannel(adopting: connection, peer: peer?.description ?? "a TCP peer", client: client)
            channel.disableNagle()
            return channel
        }
    }

    /// Waits until `accept` would not wait, or `wake` is readable, or
    /// `deadline` passes. Consumes nothing.
    public func waitAcceptable(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(TransportError) -> ChannelReadiness {
        owner.check("the listener at \(endpoint)")
        guard descriptor >= 0 else { throw .channelClosed }
        return try Posix.waitReadable(descriptor, orWake: wake, deadline: deadline)
    }

    /// Stops listening and removes the socket file of a `unix:` listener
    /// (only if the path still holds this listener's socket). Idempotent.
    /// Accepted channels stay open.
    public func close() {
        owner.check("the listener at \(endpoint)")
        guard descriptor >= 0 else { return }
        socketFile?.remove()
        Posix.close(descriptor)
        descriptor = -1
    }
}
