import Foundation
import ShareLog
import Synchronization

/// Serves a store to sync clients: many sessions at once, one thread
/// each, until `context.stop()` (docs/SYNC.md "Server").
///
/// Limits: `maxConnections` sessions (one more is told `busy`), counting
/// only connections that have spoken: until its first bytes arrive, a
/// connection waits in a `WaitingRoom` of `maxWaitingConnections`, without
/// a thread, so a flood of silent connections cannot keep clients that
/// speak out. Also a handshake deadline from the moment of accept,
/// bounded memory per session (one frame and two batches in flight), and
/// a write deadline for slow readers that stalls only that session's
/// thread. Session threads have 1 MiB stacks: glibc keeps 40 MiB of
/// freed stacks for reuse, so at the default 8 MiB every session beyond
/// the fifth concurrent one mapped a new stack and unmapped it at its end,
/// flushing the TLB of every core (about a fifth more clip fetches a
/// second at 8 and 50 connections with 1 MiB; BENCHMARKS.md, sync).
/// On stop, every session ends at its next
/// step (each batch is one transaction, so nothing is half-applied), the
/// listener closes and its socket file goes.
public final class SyncServer: Sendable {
    public let store: ShareStore
    public let configuration: SyncServerConfiguration
    private let active = Atomic(0)

    public init(store: ShareStore, configuration: SyncServerConfiguration) {
        self.store = store
        self.configuration = configuration
    }

    /// Listens on `configuration.endpoint` (not `.stdio`) and serves until
    /// `context` stops, then waits for the sessions to end.
    ///
    /// - Parameter ready: called once the listener is up, with the
    ///   endpoint it is on (a real port for `tcp:…:0`).
    public func serve(context: SessionContext, ready: (Endpoint) -> Void = { _ in }) throws(SyncFailure) {
        if case .tcp = configuration.endpoint, configuration.key == nil {
            throw .handshake(.notAuthenticated("TCP is encrypted with TLS under a shared key; pass --key-file"))
        }
        let listener: Listener
        do { listener = try Listener(listeningOn: configuration.endpoint) } catch { throw .transport(error) }
        defer { listener.close() }
        let wake = try context.registeredSignal()
        defer { context.release(wake) }
        let sessions = DispatchGroup()
        configuration.log("serving \(store.path) on \(listener.endpoint)")
        ready(listener.endpoint)
        var room = WaitingRoom(capacity: configuration.maxWaitingConnections, timeout: configuration.options.handshakeTimeout)
        defer { room.closeAll() }
        try withCommitWatch(store: store, context: context, when: true) { () throws(SyncFailure) in
            while !context.isStopping {
                let turn: WaitingRoom.Turn
                do throws(TransportError) { turn = try room.wait(listener: listener.descriptor, wake: wake.descriptor) } catch { throw .transport(error) }
                if turn.woken { wake.drain() }
                for guest in turn.spoke { admit(guest, context: context, group: sessions) }
                for guest in turn.expired { drop(guest.channel, because: .transport(.timedOut(waitingFor: silence(of: guest.channel)))) }
                if turn.acceptable { acceptWaiting(listener, into: &room) }
            }
        }
        configuration.log("stopping: waiting for \(active.load(ordering: .relaxed)) sessions to end")
        _ = sessions.wait(timeout: .now() + .seconds(Int(configuration.options.writeTimeout.components.seconds) + 5))
        configuration.log("stopped")
    }

    /// Serves one session over standard input and output.
    public func serveStdio(context: SessionContext) -> String {
        ServerSession(store: store, configuration: configuration, context: context).serve(StdioChannel())
    }

    /// Accepts the connections the listener holds, up to `maxConnections`
    /// in one turn so that the room's guests are served too, and seats
    /// them in `room`; a guest it displaces is dropped.
    private func acceptWaiting(_ listener: Listener, into room: inout WaitingRoom) {
        for _ in 0..<configuration.maxConnections {
            let connection: SocketChannel
            do throws(TransportError) { connection = try listener.accept(deadline: .now) } catch {
                if case .timedOut = error { return }
                configuration.log("accept failed: \(error)")
                return
            }
            guard let displaced = room.admit(connection, at: .now) else { continue }
            let reason = "\(room.capacity) connections that have sent nothing are waiting, the most this server holds; "
                + "this one had waited longest (a flood of silent connections?)"
            configuration.log("session \(displaced.channel): closed: dropped before it spoke: \(reason)")
            displaced.channel.close()
        }
    }

    /// What a connection silent until its handshake deadline was waited for.
    private func silence(of connection: SocketChannel) -> String {
        if case .tcp = configuration.endpoint { return "the TLS handshake with \(connection)" }
        return "a hello (handshake timeout)"
    }

    /// Closes a connection that never got a session, with its log line.
    private func drop(_ connection: SocketChannel, because failure: SyncFailure) {
        configuration.log("session \(connection): closed: \(failure)")
        connection.close()
    }

    private func admit(_ guest: WaitingRoom.Guest, context: SessionContext, group: DispatchGroup) {
        let connection = guest.channel
        guard active.add(1, ordering: .relaxed).newValue <= configuration.maxConnections else {
            active.subtract(1, ordering: .relaxed)
            let busy = FrameEncoder.encode(Message.error(code: .busy, message: "the server has \(configuration.maxConnections) sessions; try again later").frame)
            try? connection.write(busy, deadline: .now + .milliseconds(200))
            connection.close()
            configuration.log("session \(connection): refused: busy (\(configuration.maxConnections) sessions)")
            return
        }
        let session = ServerSession(store: store, configuration: configuration, context: context)
        let log = configuration.log
        group.enter()
        let thread = Thread { [self] in
            log(session.serve(connection, acceptedAt: guest.acceptedAt))
            active.subtract(1, ordering: .relaxed)
            group.leave()
        }
        thread.name = "sharelog-sync-session"
        thread.stackSize = 1 << 20
        thread.start()
    }
}
