import ShareLog

/// Runs the handshake machines over a message channel: the one place where
/// a hello, a welcome and a proof are sent and received, for `ServerSession`,
/// `SyncClient` and the session fuzz target alike.
///
/// Every wait ends at `deadline` (`nil`: none). A failure is told to the
/// peer (its `error` message, when it has one) before it is thrown, as
/// every session failure is.
enum HandshakeExchange {
    /// The server's side, for a session of its own (stdio, the fuzz
    /// target): the hello, the welcome, the proof a keyed server waits
    /// for, then `accepted` at once, since the session has its place. A
    /// listening server runs the same machine in its `Vestibule`.
    static func server(
        _ handshake: ServerHandshake, over messages: MessageChannel, store: ShareStore, deadline: ContinuousClock.Instant?
    ) throws(SyncFailure) -> EstablishedPeer {
        var handshake = handshake
        do throws(SyncFailure) {
            while handshake.admittingRole == nil {
                messages.limits = handshake.frameLimits
                let waitingFor = handshake.phase == .awaitingHello ? "a hello" : "the client's proof"
                let message = try next(messages, deadline: deadline, waitingFor: waitingFor)
                let answer: Message?
                do { answer = try handshake.receive(message) } catch { throw .handshake(error) }
                if let answer { try send(answer, over: messages, deadline: deadline) }
            }
        } catch {
            throw told(error, messages, deadline)
        }
        let accepted: Message
        do {
            accepted = try handshake.admit { replica throws(ShareLogError) in try store.highestCounter(of: replica) }
        } catch {
            throw .store(error)
        }
        try send(accepted, over: messages, deadline: deadline)
        return handshake.peer!
    }

    /// The client's side: the hello, the server's welcome, the proof, the
    /// server's acceptance, then the check of what the server says it
    /// holds of this replica's own events (`UnmadeEventsClaim`). `store`
    /// is asked for the store only once the server has accepted (a
    /// `SyncClientStore` makes a missing one then); returns the peer and
    /// that store.
    static func client(
        _ handshake: ClientHandshake, over messages: MessageChannel, store openStore: () throws(SyncFailure) -> ShareStore,
        deadline: ContinuousClock.Instant?
    ) throws(SyncFailure) -> (peer: EstablishedPeer, store: ShareStore) {
        var handshake = handshake
        try send(handshake.start, over: messages, deadline: deadline)
        do throws(SyncFailure) {
            while handshake.peer == nil {
                let waitingFor = handshake.phase == .awaitingWelcome ? "the server's welcome" : "the server's acceptance"
                let message = try next(messages, deadline: deadline, waitingFor: waitingFor)
                let replies: [Message]
                do { replies = try handshake.receive(message) } catch { throw .handshake(error) }
                for reply in replies { try send(reply, over: messages, deadline: deadline) }
            }
        } catch {
            // A welcome that does not decode is told to the server too.
            throw told(error, messages, deadline)
        }
        let peer = handshake.peer!
        let store: ShareStore
        do { store = try openStore() } catch { throw told(error, messages, deadline) }
        let made: UInt64
        do { made = try store.originCounter() } catch { throw .store(error) }
        if let claim = UnmadeEventsClaim(replica: store.replicaID, held: peer.heldOfYou, made: made) {
            throw told(.handshake(.claimsUnmadeEvents(claim)), messages, deadline)
        }
        return (peer, store)
    }

    private static func next(_ messages: MessageChannel, deadline: ContinuousClock.Instant?, waitingFor what: String) throws(SyncFailure) -> Message {
        switch try messages.receive(orWake: nil, deadline: deadline) {
        case .message(let message): return message
        case .closed: throw .peerClosed
        case .timedOut, .woken: throw .transport(.timedOut(waitingFor: "\(what) (handshake timeout)"))
        }
    }

    private static func send(_ message: Message, over messages: MessageChannel, deadline: ContinuousClock.Instant?) throws(SyncFailure) {
        do { try messages.send(message, deadline: deadline) } catch { throw .transport(error) }
    }

    /// `failure`, once the peer has been sent its `error` message.
    private static func told(_ failure: SyncFailure, _ messages: MessageChannel, _ deadline: ContinuousClock.Instant?) -> SyncFailure {
        if let message = failure.errorMessage { try? messages.send(message, deadline: deadline) }
        return failure
    }
}
