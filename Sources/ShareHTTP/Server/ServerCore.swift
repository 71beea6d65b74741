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

/// One request, from its request line to its end: the request target as
/// sent (libmicrohttpd hands the handler a decoded path, and the link rules
/// need the raw one), and how far the handler has got with it. Only the
/// connection's own thread touches it.
final class RequestContext {
    let target: String
    /// The handler has seen the complete header.
    var headerSeen = false
    /// The handler has queued the answer.
    var answered = false
    init(target: String) { self.target = target }
}
