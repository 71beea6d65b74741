import Foundation
import ShareLog
import Synchronization

/// Serves a store to sync clients: many sessions at once, one thread
/// each, until `context.stop()` (docs/SYNC.md "Server").
///
/// Limits: `maxConnections` sessions (one more is told `busy`), a
/// handshake deadline, bounded memory per session (one frame and two
/// batches in flight), and a write deadline for slow readers that stalls
/// only that session's thread. On stop, every session ends at its next
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
        try withCommitWatch(store: store, context: context, when: true) { () throws(SyncFailure) in
            while !context.isStopping {
                let readiness: ChannelReadiness
                do throws(TransportError) { readiness = try listener.waitAcceptable(orWake: wake.descriptor, deadline: nil) } catch { throw .transport(error) }
                guard readiness == .readable else {
                    wake.drain()
                    continue
                }
                let connection: SocketChannel
                do throws(TransportError) { connection = try listener.accept(deadline: .now + configuration.options.handshakeTimeout) } catch {
                    configuration.log("accept failed: \(error)")
                    continue
                }
                admit(connection, context: context, group: sessions)
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

    private func admit(_ connection: SocketChannel, context: SessionContext, group: DispatchGroup) {
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
            log(session.serve(connection))
            active.subtract(1, ordering: .relaxed)
            group.leave()
        }
        thread.name = "sharelog-sync-session"
        thread.start()
    }
}
