internal import CMicroHTTPD
import Foundation
import ShareLog

/// libmicrohttpd's callbacks: C functions that find their daemon's
/// `DaemonContext` (and through it the `ServerCore`) through their `cls`
/// pointer, turn the library's view of a request into a `GatewayRequest`,
/// and the `GatewayResponse` back into the library's.
enum HTTPServerCallbacks {
    private static func daemon(_ cls: UnsafeMutableRawPointer?) -> DaemonContext {
        Unmanaged<DaemonContext>.fromOpaque(cls!).takeUnretainedValue()
    }

    private static func core(_ cls: UnsafeMutableRawPointer?) -> ServerCore { daemon(cls).core }

    /// The request line is in: keep the raw target for the handler. Its
    /// return value becomes the request's context (`con_cls`), released
    /// in `completed`, which the library calls for every request whose
    /// line this saw.
    static let requestLine: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
        cls, uri, _ in
        core(cls).liveRequests.add(1, ordering: .relaxed)
        let target = uri.map { String(cString: $0) } ?? ""
        return Unmanaged.passRetained(RequestContext(target: target)).toOpaque()
    }

    /// A request ended (answered, or cut off): free its context, and start
    /// the connection's clock for its next header.
    static let completed: @convention(c) (
        UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, MHD_RequestTerminationCode
    ) -> Void = { cls, connection, context, _ in
        let core = core(cls)
        guard let raw = context?.pointee else { return }
        context?.pointee = nil
        let request = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        core.liveRequests.subtract(1, ordering: .relaxed)
        if request.answered { core.inFlight.subtract(1, ordering: .relaxed) }
        entry(of: connection)?.requestEnded(timeout: core.watch.timeout)
    }

    /// A connection opened or closed: count it for its daemon, and add it
    /// to, or take it from, the header watch. Its entry lives in the
    /// connection's socket context.
    static let connection: @convention(c) (
        UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, MHD_ConnectionNotificationCode
    ) -> Void = { cls, connection, socketContext, code in
        let daemon = daemon(cls)
        let watch = daemon.core.watch
        daemon.connections.add(code == .CONNECTION_NOTIFY_STARTED ? 1 : -1, ordering: .relaxed)
        if code == .CONNECTION_NOTIFY_STARTED {
            let descriptor = sharelog_mhd_connection_fd(connection)
            guard descriptor >= 0 else { return }
            socketContext?.pointee = Unmanaged.passRetained(watch.add(descriptor: descriptor)).toOpaque()
        } else if let raw = socketContext?.pointee {
            socketContext?.pointee = nil
            watch.remove(Unmanaged<ConnectionWatch.Entry>.fromOpaque(raw).takeRetainedValue())
        }
    }

    /// libmicrohttpd's own messages (a failed TLS handshake, a refused
    /// connection), into the server's log.
    static let libraryLog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { cls, message in
        guard let message else { return }
        let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        let printable = String(text.unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) })
        core(cls).log(LogRecord(.warning, "http.library", "http libmicrohttpd: " + printable))
    }

    /// The access handler. libmicrohttpd calls it once the header is in,
    /// then for each piece of a body, then once more at the end.
    ///
    /// - `GET` and `HEAD` are answered at the end, so the connection stays
    ///   open for the next request; a body is read and dropped.
    /// - A request the responder takes a body for (`bodyLimit`) is answered
    ///   at the end with the body. A `Content-Length` over the limit is
    ///   answered at once, with `bodyOverLimit` set, and the library then
    ///   drops the body and closes the connection. A chunked body that
    ///   grows past the limit is read to its end and dropped, then
    ///   answered the same way: libmicrohttpd queues no answer in the
    ///   middle of a body (it refuses one, and the client would get a
    ///   reset instead of the 413). Such a request stays under the header
    ///   deadline until its body is in, which bounds how long a body may
    ///   take, dropped or kept: one trickled byte by byte is cut off as a
    ///   slow header is.
    /// - Other methods are answered at once, from the header alone, and
    ///   their connection closed the same way.
    static let request: MHD_AccessHandlerCallback = { cls, connection, _, method, _, upload, uploadSize, context in
        let daemon = daemon(cls)
        guard let connection, let raw = context?.pointee, let method else { return .NO }
        let state = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        if state.answered {
            // Called again once a worker's answer resumed the connection.
            guard let answer = state.pending?.take() else { return .YES }
            state.pending = nil
            return deliver(answer, on: connection, daemon)
        }
        let methodName = String(cString: method)
        let isRead = methodName == "GET" || methodName == "HEAD"
        if !state.headerSeen {
            state.headerSeen = true
            if isRead {
                entry(of: connection)?.requestStarted()
                return .YES
            }
            guard let limit = daemon.core.responder.bodyLimit(for: request(state, methodName, on: connection)) else {
                entry(of: connection)?.requestStarted()
                return answer(state, methodName, on: connection, daemon, bodyIsIn: declaresNoBody(connection))
            }
            state.bodyLimit = limit
            if let declared = header(connection, "Content-Length").flatMap(Int.init), declared > limit {
                return answer(state, methodName, on: connection, daemon, bodyIsIn: false, overLimit: true)
            }
            return .YES
        }
        if let uploadSize, uploadSize.pointee > 0 {
            let size = uploadSize.pointee
            uploadSize.pointee = 0
            guard let limit = state.bodyLimit, let upload, !state.overLimit else { return .YES }
            if state.body.count + size > limit {
                state.overLimit = true
                state.body = []
            } else {
                state.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: size))
            }
            return .YES
        }
        if state.bodyLimit != nil { entry(of: connection)?.requestStarted() }
        return answer(state, methodName, on: connection, daemon, bodyIsIn: true, overLimit: state.overLimit)
    }

    /// Answers the request of `state`: hands it to the responder, queues
    /// the answer, and logs it. Once only: `state.answered` is set. A
    /// request the responder says may block is answered by a worker thread
    /// instead (`OffThreadAnswers`), its connection suspended until the
    /// answer is ready; the library then calls the handler again, which
    /// queues it. Only once its body is in (`bodyIsIn`): a request answered
    /// from its header while a body follows is a refusal, which never
    /// waits, and its connection must go on reading the body to drop it.
    private static func answer(
        _ state: RequestContext, _ method: String, on connection: OpaquePointer, _ daemon: DaemonContext, bodyIsIn: Bool,
        overLimit: Bool = false
    ) -> MHD_Result {
        let core = daemon.core
        state.answered = true
        core.inFlight.add(1, ordering: .relaxed)
        var request = request(state, method, on: connection)
        request.body = overLimit ? [] : state.body
        request.bodyOverLimit = overLimit
        state.body = []
        if bodyIsIn, !overLimit, core.responder.mayBlock(request), daemon.offThread.reserve() {
            let pending = PendingAnswer()
            state.pending = pending
            MHD_suspend_connection(connection)
            let suspended = SuspendedConnection(pointer: connection)
            daemon.offThread.run { [request] in
                pending.set(respond(to: request, core: core, overLimit: overLimit))
                MHD_resume_connection(suspended.pointer)
            }
            return .YES
        }
        return deliver(respond(to: request, core: core, overLimit: overLimit), on: connection, daemon)
    }

    /// The responder's answer to `request`, timed.
    private static func respond(to request: GatewayRequest, core: ServerCore, overLimit: Bool) -> PendingAnswer.Answer {
        let started = MonotonicTime.microseconds
        let response = core.responder.respond(to: request)
        return PendingAnswer.Answer(request: request, response: response, microseconds: MonotonicTime.microseconds - started, overLimit: overLimit)
    }

    /// Queues `answer` on the connection and logs it.
    private static func deliver(_ answer: PendingAnswer.Answer, on connection: OpaquePointer, _ daemon: DaemonContext) -> MHD_Result {
        let core = daemon.core
        var response = answer.response
        if daemon.closesConnections || answer.overLimit { response.headers.append(HTTPHeader("Connection", "close")) }
        let queued = queue(response, on: connection)
        core.answered.add(1, ordering: .relaxed)
        if let line = core.responder.answered(answer.request, response, microseconds: answer.microseconds) { core.log(line) }
        return queued
    }

    /// The request of `state` as its header gives it, without a body.
    private static func request(_ state: RequestContext, _ method: String, on connection: OpaquePointer) -> GatewayRequest {
        GatewayRequest(
            method: method,
            target: state.target,
            accept: header(connection, "Accept"),
            ifNoneMatch: header(connection, "If-None-Match"),
            forwardedFor: header(connection, "X-Forwarded-For"),
            headerBytes: sharelog_mhd_header_size(connection),
            client: clientAddress(connection),
            contentType: header(connection, "Content-Type"),
            authorization: header(connection, "Authorization"),
            idempotencyKey: header(connection, "Idempotency-Key"))
    }

    private static func queue(_ response: GatewayResponse, on connection: OpaquePointer) -> MHD_Result {
        let made = response.body.withUnsafeBytes {
            MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        for field in response.headers { _ = MHD_add_response_header(made, field.name, field.value) }
        return MHD_queue_response(connection, UInt32(response.status.code), made)
    }

    /// Whether the request's header says no body follows: no
    /// `Transfer-Encoding`, and no `Content-Length` or one of 0.
    private static func declaresNoBody(_ connection: OpaquePointer) -> Bool {
        header(connection, "Transfer-Encoding") == nil && (header(connection, "Content-Length").map { Int($0) == 0 } ?? true)
    }

    private static func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    private static func entry(of connection: OpaquePointer?) -> ConnectionWatch.Entry? {
        guard let raw = sharelog_mhd_socket_context(connection) else { return nil }
        return Unmanaged<ConnectionWatch.Entry>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The peer's address; an IPv4-mapped IPv6 address counts as IPv4.
    private static func clientAddress(_ connection: OpaquePointer) -> ClientAddress {
        guard let address = sharelog_mhd_client_address(connection) else { return .local }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { .ipv4(UInt32(bigEndian: $0.pointee.sin_addr.s_addr)) }
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return .ipv4(bytes[12...].reduce(0) { $0 << 8 | UInt32($1) })
            }
            return .ipv6(high: bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }, low: bytes[8...].reduce(0) { $0 << 8 | UInt64($1) })
        default:
            return .local
        }
    }
}
