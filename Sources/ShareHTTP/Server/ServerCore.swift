import ShareLog
import Synchronization

/// What libmicrohttpd's callbacks reach through their `cls` pointer: the
/// responder, the log, the connection watch and the counters. Owned by the
/// `HTTPServer`, which outlives the daemon that calls into it.
final class ServerCore: Sendable {
    let responder: any HTTPResponder
    let log: @Sendable (LogRecord) -> Void
    let watch: ConnectionWatch
    /// Requests whose handler has run and whose answer is not yet done.
    let inFlight = Atomic<Int>(0)
    /// Request contexts alive (made at the request line, freed at the end):
    /// 0 when idle, or something leaks.
    let liveRequests = Atomic<Int>(0)
    /// Answers given, in all.
    let answered = Atomic<Int>(0)
    /// Set by `stop()`: answers from then on close their connection.
    let stopping = Atomic<Bool>(false)

    init(responder: any HTTPResponder, log: @escaping @Sendable (LogRecord) -> Void, headerTimeout: Duration) {
        self.responder = responder
        self.log = log
        watch = ConnectionWatch(timeout: headerTimeout)
    }
}
