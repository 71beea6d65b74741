import Synchronization

/// What the callbacks of one libmicrohttpd daemon reach through their
/// `cls` pointer: the server's `ServerCore`, shared by every daemon of the
/// server, and what belongs to this daemon alone. Owned by its
/// `HTTPDaemon`, which outlives the library's daemon that calls into it.
final class DaemonContext: Sendable {
    let core: ServerCore
    /// Set once the daemon has handed the listening socket to a newer one
    /// (`HTTPServer.replaceCertificate`): its answers from then on close
    /// their connection, so that its clients reconnect, to the new one.
    let retiring = Atomic<Bool>(false)
    /// Connections open on this daemon, from libmicrohttpd's start and
    /// close notifications: a retiring daemon is stopped once it is 0.
    let connections = Atomic<Int>(0)
    /// Requests answered off libmicrohttpd's threads, their connections
    /// suspended: drained before the daemon stops.
    let offThread = OffThreadAnswers()

    init(core: ServerCore) { self.core = core }

    /// Whether an answer given now must close its connection: the server
    /// is stopping, or this daemon retiring.
    var closesConnections: Bool { core.stopping.load(ordering: .relaxed) || retiring.load(ordering: .relaxed) }
}
