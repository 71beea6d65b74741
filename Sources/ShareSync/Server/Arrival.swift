import Glibc
import ShareLog

/// One connection in a server's `Vestibule`: accepted, not yet admitted.
/// Its TLS handshake (over TCP) and its sync handshake run here, a step
/// each time its bytes arrive, on the accept thread and without waiting.
///
/// It holds a socket, the server's handshake machine and a read buffer no
/// larger than the handshake's largest message; over TCP, OpenSSL's state
/// and one record's buffer too. It is admitted, and gets a session thread,
/// only once it is authenticated (a main) or known to be a clip, and its
/// role's pool has a place (`SessionPlaces`).
final class Arrival {
    /// What a step of the handshake came to.
    enum Progress {
        /// It needs more of the client's bytes.
        case waiting
        /// The handshake is over and a place taken, with the session's
        /// wake-up signal: the session may run.
        case admitted(MessageChannel, EstablishedPeer, WakeSignal)
        /// Its role's pool is full; the client was told `busy`.
        case busy(SyncRole)
        /// The handshake failed; the client was told why when it could be.
        case failed(SyncFailure)
    }

    let socket: SocketChannel
    let acceptedAt: ContinuousClock.Instant
    /// The TLS session while its handshake runs (TCP only).
    private var tls: TLSChannel?
    /// The messages, once the byte stream carries them.
    private var messages: MessageChannel?
    private var handshake: ServerHandshake

    /// Whether the client has shown it is more than noise: over TCP, it
    /// finished TLS (which takes the key); on a Unix socket, it said hello.
    /// A full vestibule makes room by dropping arrivals that have not.
    var hasProgressed: Bool { tls != nil ? messages != nil : handshake.phase != .awaitingHello }

    /// A connection accepted at `acceptedAt`; over TCP, TLS under `context`.
    init(_ socket: SocketChannel, acceptedAt: ContinuousClock.Instant, tls context: TLSContext?, handshake: ServerHandshake) throws(TransportError) {
        self.socket = socket
        self.acceptedAt = acceptedAt
        self.handshake = handshake
        if let context {
            tls = try TLSChannel.pendingServer(over: socket, context: context)
        } else {
            messages = MessageChannel(socket, limits: handshake.frameLimits)
        }
    }

    /// Where the client is waited for: a TLS handshake, a hello, a proof.
    var waitingFor: String {
        if messages == nil { return "the TLS handshake with \(socket)" }
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
        do throws(SyncFailure) {
            let messages: MessageChannel
            if let ready = self.messages {
                messages = ready
            } else {
                guard let tls else { return .waiting }
                let done: Bool
                do { done = try tls.advanceHandshake() } catch { throw .transport(error) }
                guard done else { return .waiting }
                messages = MessageChannel(tls, limits: handshake.frameLimits)
                self.messages = messages
            }
            while true {
                messages.limits = handshake.frameLimits
                let message: Message
                switch try messages.receive(orWake: nil, deadline: .now) {
                case .message(let next): message = next
                case .timedOut, .woken: return .waiting
                case .closed: throw SyncFailure.peerClosed
                }
                if case .hello(let hello) = message, !places.hasRoom(for: hello.role) { return refuseBusy(hello.role, places, messages) }
                let answer: Message?
                do { answer = try handshake.receive(message) } catch { throw .handshake(error) }
                if let answer { try send(answer, messages) }
                guard let role = handshake.admittingRole else { continue }
                guard places.take(role) else { return refuseBusy(role, places, messages) }
                guard let wake = wakeSignal() else {
                    places.release(role)
                    try? messages.send(.error(code: .busy, message: "the server is out of file descriptors; try again later"), deadline: .now)
                    return .failed(.transport(.system(operation: "making the session's wake-up pipe", errno: EMFILE)))
                }
                do throws(SyncFailure) {
                    let accepted: Message
                    do {
                        accepted = try handshake.admit { replica throws(ShareLogError) in try store.highestCounter(of: replica) }
                    } catch {
                        throw .store(error)
                    }
                    try send(accepted, messages)
                } catch {
                    places.release(role)
                    wake.close()
                    throw error
                }
                return .admitted(messages, handshake.peer!, wake)
            }
        } catch {
            if let message = error.errorMessage, let messages { try? messages.send(message, deadline: .now) }
            return .failed(error)
        }
    }

    /// Closes the connection of an arrival that was not admitted.
    func close() {
        if let messages { messages.channel.close() } else if let tls { tls.close() } else { socket.close() }
    }

    /// Tells the client `busy`, in the transport's own protocol (inside
    /// TLS on the TCP port), so that it retries.
    private func refuseBusy(_ role: SyncRole, _ places: SessionPlaces, _ messages: MessageChannel) -> Progress {
        let text = "the server has \(places.pool(role)), the most it holds; try again later"
        try? messages.send(.error(code: .busy, message: text), deadline: .now)
        return .busy(role)
    }

    private func send(_ message: Message, _ messages: MessageChannel) throws(SyncFailure) {
        do { try messages.send(message, deadline: .now) } catch { throw .transport(error) }
    }

}
