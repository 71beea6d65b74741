/// One request, from its request line to its end: the request target as
/// sent (libmicrohttpd hands the handler a decoded path, and the link rules
/// need the raw one), and how far the handler has got with it. Only the
/// connection's own thread touches it; a worker answering it off that
/// thread reaches only its `pending` answer.
final class RequestContext {
    let target: String
    /// The handler has seen the complete header.
    var headerSeen = false
    /// The handler has queued the answer.
    var answered = false
    /// The most body bytes the responder takes for this request; nil when
    /// it takes none (`HTTPResponder.bodyLimit`).
    var bodyLimit: Int?
    /// The body received so far, never more than `bodyLimit`.
    var body: [UInt8] = []
    /// The body grew past `bodyLimit`: the rest is read and dropped.
    var overLimit = false
    /// Set while a worker answers the request, its connection suspended
    /// (`HTTPResponder.mayBlock`): where the answer waits to be queued.
    var pending: PendingAnswer?
    init(target: String) { self.target = target }
}
