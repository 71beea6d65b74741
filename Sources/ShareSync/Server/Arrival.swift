import Glibc
import ShareLog
import SharePrimitives

/// One connection in a server's `Vestibule`: accepted, not yet admitted.
/// Its TLS handshake (over TCP) and its sync handshake run here, a step
/// each time its bytes arrive, on the accept thread and without waiting.
///
/// It holds a socket, the server's handshake machine and a read buffer no
/// larger than the handshake's largest message; over TCP, OpenSSL's state
/// and one record's buffer too. It is admitted, and gets a session thread,
/// only once it is authenticated (a main) or known to be a clip, and its
/// role's pool has a place (`SessionPlaces`).
///
/// Its connection waits in a `Handoff`, a region of its own: the accept
/// thread uses it in place, and the session thread takes it whole
/// (`handOver()`), the compiler checking that nothing here keeps a part.
final class Arrival {
    /// What a step of the handshake came to.
    enum Progress {
        /// It needs more of the client's bytes.
        case waiting
        /// The handshake is over and a place taken, with the session's
        /// wake-up signal: the session may run, on the channel that
        /// `handOver()` gives.
        case admitted(EstablishedPeer, WakeSignal)
        /// Its role's pool is full; the client was told `busy`.
        case busy(SyncRole)
        /// The handshake failed; the client was told why when it could be.
        case failed(SyncFailure)
    }

    /// What the connection is while its handshake runs.
    private enum Connection {
        /// Its TLS handshake runs (TCP only).
        case tls(TLSChannel)
        /// Its byte stream carries messages.
        case messages(MessageChannel)
    }

    /// The peer, for log lines (the socket's description).
    let peer: String
    /// Who is at the other end, for limits that count per client
    /// (`SocketChannel.client`).
    let client: String
    /// The socket, for the vestibule's poll: valid until `close()` or
    /// `handOver()`, after which the arrival has left the vestibule.
    let descriptor: Int32
    let acceptedAt: ContinuousClock.Instant
    private let connection: Handoff<Connection>
    /// Whether the connection runs TLS (TCP).
    private let overTLS: Bool
    /// Whether its byte stream carries messages yet: over TCP, once TLS is done.
    private var speaking: Bool
    private var handshake: ServerHandshake

    /// Whether the client has shown it is more than noise: over TCP, it
    /// finished TLS (which takes the key); on a Unix socket, it said hello.
    /// A full vestibule makes room by dropping arrivals that have not.
    var hasProgressed: Bool { overTLS ? speaking : handshake.phase != .awaitingHello }

    /// A connection accepted at `acceptedAt`, handed to the arrival whole;
    /// over TCP, TLS under `context`.
    init(
        _ socket: sending SocketChannel, acceptedAt: ContinuousClock.Instant, tls context: TLSContext?, handshake: ServerHandshake
    ) throws(TransportError) {
        peer = socket.description
        client = socket.client
        descriptor = socket.descriptor
        self.acceptedAt = acceptedAt
        self.handshake = handshake
        overTLS = context != nil
        speaking = context == nil
        if let context {
            connection = Handoff(.tls(try TLSChannel.pendingServer(over: socket, context: context)))
        } else {
            connection = Handoff(.messages(MessageChannel(socket, limits: handshake.frameLimits)))
        }
    }

    /// Where the client is waited for: a TLS handshake, a hello, a proof.
    var waitingFor: String {
        if !speaking { return "the TLS handshake with \(peer)" }
        return handshake.phase == .awaitingHello ? "a hello (handshake timeout)" : "the client's proof (handshake timeout)"
    }

    /// Runs the handshake as far as the bytes that have arrived allow.
    /// Answers are written without waiting: a client that does not take a
    /// welcome of about a hundred bytes at once is not a client.
    ///
    /// Everything a session needs is taken before `accepted` is sent: its
    /// place, and its wake-up signal from `wakeSignal` (descriptors, which
    /// may have run out; nil then, and the client is told `busy` and the
    /// log why), so that an admitted client is never cut off for want of
    /// them.
    func advance(places: SessionPlaces, store: ShareStore, wakeSignal: () -> WakeSignal?) -> Progress {
        connection.withValue { connection in
            let messages: MessageChannel
            switch connection {
            case .messages(let ready):
                messages = ready
            case .tls(let tls):
                let done: Bool
                do throws(TransportError) { done = try tls.advanceHandshake() } catch { return .failed(.transport(error)) }
                guard done else { return .waiting }
                messages = MessageChannel(tls, limits: handshake.frameLimits)
                connection = .messages(messages)
                speaking = true
            }
            do throws(SyncFailure) {
                let role: SyncRole
                switch try Self.exchange(messages, &handshake, places: places) {
                case .progress(let progress): return progress
                case .admitting(let admitted): role = admitted
                }
                guard places.take(role) else { return Self.refuseBusy(role, places, messages) }
                // Called here rather than passed to a helper beside
                // `messages`: the compiler would take the helper to tie the
                // two together, and `messages` could not be handed over.
                guard let wake = wakeSignal() else {
                    places.release(role)
                    try? messages.send(.error(code: .busy, message: "the server is out of file descriptors; try again later"), deadline: .now)
                    return .failed(.transport(.system(operation: "making the session's wake-up pipe", errno: EMFILE)))
                }
                do throws(SyncFailure) {
                    try Self.admit(messages, &handshake, store: store)
                } catch {
                    places.release(role)
                    wake.close()
                    throw error
                }
                return .admitted(handshake.peer!, wake)
            } catch {
                if let message = error.errorMessage { try? messages.send(message, deadline: .now) }
                return .failed(error)
            }
        }
    }

    /// What the sync handshake's messages came to.
    private enum Exchanged {
        /// It waits for more, or was refused.
        case progress(Progress)
        /// It is done, and the client may be admitted in this role.
        case admitting(SyncRole)
    }

    /// Takes the client's messages and answers them, as far as the bytes
    /// that have arrived allow.
    private static func exchange(
        _ messages: MessageChannel, _ handshake: inout ServerHandshake, places: SessionPlaces
    ) throws(SyncFailure) -> Exchanged {
        while true {
            messages.limits = handshake.frameLimits
            let message: Message
            switch try messages.receive(orWake: nil, deadline: .now) {
            case .message(let next): message = next
            case .timedOut, .woken: return .progress(.waiting)
            case .closed: throw SyncFailure.peerClosed
            }
            if case .hello(let hello) = message, !places.hasRoom(for: hello.role) { return .progress(refuseBusy(hello.role, places, messages)) }
            let answer: Message?
            do { answer = try handshake.receive(message) } catch { throw .handshake(error) }
            if let answer { try send(answer, messages) }
            if let role = handshake.admittingRole { return .admitting(role) }
        }
    }

    /// Sends `accepted`, with the highest counter of the client's own
    /// events that the store holds.
    private static func admit(_ messages: MessageChannel, _ handshake: inout ServerHandshake, store: ShareStore) throws(SyncFailure) {
        let accepted: Message
        do {
            accepted = try handshake.admit { replica throws(ShareLogError) in try store.highestCounter(of: replica) }
        } catch {
            throw .store(error)
        }
        try send(accepted, messages)
    }

    /// The admitted session's channel, for the thread that runs the
    /// session, which no longer shares it with anything here. Once, after
    /// `advance` said `.admitted`; the arrival is done with then.
    func handOver() -> sending MessageChannel {
        guard case .messages(let messages) = connection.take() else { preconditionFailure("handOver() before the handshake ended") }
        return messages
    }

    /// Closes the connection of an arrival that was not admitted.
    func close() {
        connection.withValue { connection in
            switch connection {
            case .tls(let tls): tls.close()
            case .messages(let messages): messages.channel.close()
            }
        }
    }

    /// Tells the client `busy`, in the transport's own protocol (inside
    /// TLS on the TCP port), so that it retries.
    private static func refuseBusy(_ role: SyncRole, _ places: SessionPlaces, _ messages: MessageChannel) -> Progress {
        let text = "the server has \(places.pool(role)), the most it holds; try again later"
        try? messages.send(.error(code: .busy, message: text), deadline: .now)
        return .busy(role)
    }

    private static func send(_ message: Message, _ messages: MessageChannel) throws(SyncFailure) {
        do { try messages.send(message, deadline: .now) } catch { throw .transport(error) }
    }

}
