internal import COpenSSL
import SharePrimitives

/// A TLS 1.3 session over a connected `SocketChannel`, both sides
/// authenticated by a shared `SyncKey` (see `TLSContext` for the exact
/// configuration).
///
/// OpenSSL never touches the socket: it reads and writes two memory BIOs,
/// and this class moves the bytes between them and the socket with the
/// socket's deadlines, `MSG_NOSIGNAL` and `EINTR` handling. So a deadline
/// bounds the handshake, reads and writes alike, and `SIGPIPE` is never
/// raised. A write that reads ahead leaves the peer's records to the
/// socket's read-ahead, as ciphertext: OpenSSL is not entered again until
/// the write is done. Everything OpenSSL allocates (`SSL`, its BIOs and PSK sessions)
/// is freed on every path, failed handshakes included.
///
/// The peer closing the socket without TLS's `close_notify` reads as the
/// end of the stream (0), like `close_notify` itself: sync's frames carry
/// their own lengths and checksums, so a truncated stream is detected one
/// layer up, and cutting a connection is something any attacker on the
/// path can do anyway.
///
/// Not `Sendable`: like every `ByteChannel`, it belongs to one thread at a
/// time, and only that thread touches its `SSL` object, which OpenSSL does
/// not allow two threads to use at once. Debug builds check every call.
public final class TLSChannel: ByteChannel {
    public let description: String
    private let socket: SocketChannel
    /// Keeps the `SSL_CTX` and the key alive as long as `ssl`.
    private let context: TLSContext
    /// The `SSL`, owner of both BIOs; nil once closed.
    private var ssl: OpaquePointer?
    /// Ciphertext from the socket, for OpenSSL to read.
    private let incoming: OpaquePointer
    /// Ciphertext from OpenSSL, for the socket.
    private let outgoing: OpaquePointer
    /// Carries ciphertext between the BIOs and the socket.
    private let transfer: UnsafeMutableRawBufferPointer
    /// Whether the handshake completed (then `close` sends `close_notify`).
    private var established = false
    /// A failure that `waitReadable` found; the next `read` throws it.
    private var pendingFailure: TransportError?
    /// The thread that may use the channel.
    private var owner = OwningThread()

    /// The largest TLS record, with its header and expansion: the most
    /// ciphertext moved at once.
    private static let transferBytes = 16_384 + 2_048

    private init(socket: SocketChannel, context: TLSContext) throws(TransportError) {
        self.socket = socket
        self.context = context
        description = "\(socket.description) (TLS 1.3)"
        guard let ssl = SSL_new(context.handle), let incoming = BIO_new(BIO_s_mem()) else {
            throw .tls(operation: "set-up", peer: socket.description, details: OpenSSLErrorQueue.drain())
        }
        guard let outgoing = BIO_new(BIO_s_mem()) else {
            BIO_free(incoming)
            SSL_free(ssl)
            throw .tls(operation: "set-up", peer: socket.description, details: OpenSSLErrorQueue.drain())
        }
        SSL_set_bio(ssl, incoming, outgoing)
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        transfer = .allocate(byteCount: Self.transferBytes, alignment: 1)
    }

    /// Whichever thread drops the last reference is alone with the channel
    /// (and its socket, which nothing else holds).
    deinit {
        adoptOnCurrentThread()
        close()
        transfer.deallocate()
    }

    public func adoptOnCurrentThread() {
        owner.adoptCurrent()
        socket.adoptOnCurrentThread()
    }

    /// Runs the server's side of the handshake on `socket`, until `deadline`.
    /// Takes ownership of `socket`: it is closed if the handshake fails.
    /// `context` is the server's, shared by all its connections.
    ///
    /// Throws `.tlsKeyMismatch` when the client holds another key,
    /// `.tlsNotSpoken` when it sends something that is not TLS, `.timedOut`
    /// when it stalls, `.peerClosed` when it hangs up.
    public static func server(
        over socket: SocketChannel, context: TLSContext, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> TLSChannel {
        precondition(context.role == .server, "TLSChannel.server needs a server context")
        return try handshake(over: socket, context: context, deadline: deadline)
    }

    /// Runs the client's side of the handshake on `socket`, until `deadline`.
    /// Takes ownership of `socket`: it is closed if the handshake fails.
    /// Throws as `server(over:context:deadline:)` does.
    public static func client(
        over socket: SocketChannel, context: TLSContext, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> TLSChannel {
        precondition(context.role == .client, "TLSChannel.client needs a client context")
        return try handshake(over: socket, context: context, deadline: deadline)
    }

    /// `server(over:context:deadline:)` with a context of its own for `key`.
    /// A server that accepts many connections shares one `TLSContext`.
    public static func server(
        over socket: SocketChannel, key: SyncKey, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> TLSChannel {
        let context: TLSContext
        do { context = try TLSContext(role: .server, key: key) } catch {
            socket.close()
            throw error
        }
        return try server(over: socket, context: context, deadline: deadline)
    }

    /// `client(over:context:deadline:)` with a context of its own for `key`.
    public static func client(
        over socket: SocketChannel, key: SyncKey, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> TLSChannel {
        let context: TLSContext
        do { context = try TLSContext(role: .client, key: key) } catch {
            socket.close()
            throw error
        }
        return try client(over: socket, context: context, deadline: deadline)
    }

    /// The server's side of a session whose handshake has not started:
    /// `advanceHandshake()` runs it as the client's bytes arrive, never
    /// waiting, so that one thread can hold many handshakes at once (the
    /// sync server's `Vestibule`). Takes ownership of `socket`.
    static func pendingServer(over socket: SocketChannel, context: TLSContext) throws(TransportError) -> TLSChannel {
        precondition(context.role == .server, "TLSChannel.pendingServer needs a server context")
        let channel: TLSChannel
        do { channel = try TLSChannel(socket: socket, context: context) } catch {
            socket.close()
            throw error
        }
        if let ssl = channel.ssl { SSL_set_accept_state(ssl) }
        return channel
    }

    /// Runs the handshake of a `pendingServer` as far as the bytes already
    /// arrived allow, and sends what it answers, without waiting for the
    /// peer: true once the handshake is complete, false while it needs
    /// more of the client's bytes. Throws as the blocking handshake does,
    /// and `.timedOut` when the client does not take the few hundred
    /// bytes of the server's answer at once.
    func advanceHandshake() throws(TransportError) -> Bool {
        owner.check(description)
        guard let ssl else { throw .channelClosed }
        while true {
            OpenSSLErrorQueue.clear()
            let result = SSL_do_handshake(ssl)
            let status = SSL_get_error(ssl, result)
            let failure = result == 1 || status == SSL_ERROR_WANT_READ ? nil : classify(status: status, operation: "handshake")
            try flushReporting(failure, deadline: .now)
            if result == 1 {
                established = true
                return true
            }
            let count: Int
            do { count = try socket.read(into: transfer, deadline: .now) } catch .timedOut { return false }
            guard count > 0 else { throw .peerClosed(peer: socket.description) }
            guard BIO_write(incoming, transfer.baseAddress, Int32(count)) == Int32(count) else {
                throw .tls(operation: "buffering", peer: socket.description, details: OpenSSLErrorQueue.drain())
            }
        }
    }

    /// The socket under the session, for a poll loop that waits on many.
    var descriptor: Int32 { socket.descriptor }

    private static func handshake(
        over socket: SocketChannel, context: TLSContext, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> TLSChannel {
        let channel: TLSChannel
        do { channel = try TLSChannel(socket: socket, context: context) } catch {
            socket.close()
            throw error
        }
        do {
            try channel.runHandshake(deadline: deadline)
        } catch {
            channel.close()
            throw error
        }
        return channel
    }

    private func runHandshake(deadline: ContinuousClock.Instant?) throws(TransportError) {
        guard let ssl else { throw .channelClosed }
        if context.role == .server { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        while true {
            OpenSSLErrorQueue.clear()
            let result = SSL_do_handshake(ssl)
            let status = SSL_get_error(ssl, result)
            let failure = result == 1 || status == SSL_ERROR_WANT_READ ? nil : classify(status: status, operation: "handshake")
            // Send what OpenSSL wrote, an alert included, so that the peer
            // learns why the handshake failed.
            try flushReporting(failure, deadline: deadline)
            if result == 1 {
                established = true
                return
            }
            guard try fill(deadline: deadline, waitingFor: "the TLS handshake with \(socket.description)") else {
                throw .peerClosed(peer: socket.description)
            }
        }
    }

    public func read(
        into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> Int {
        precondition(!buffer.isEmpty, "read(into:) needs room for at least one byte")
        owner.check(description)
        if let pendingFailure { throw pendingFailure }
        while true {
            guard let ssl else { throw .channelClosed }
            OpenSSLErrorQueue.clear()
            let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
            let status = SSL_get_error(ssl, count)
            let normal = count > 0 || status == SSL_ERROR_WANT_READ || status == SSL_ERROR_ZERO_RETURN
            let failure = normal ? nil : classify(status: status, operation: "read")
            try flushReporting(failure, deadline: deadline)
            if count > 0 { return Int(count) }
            if status == SSL_ERROR_ZERO_RETURN { return 0 }
            guard try fill(deadline: deadline, waitingFor: "data from \(description)") else { return 0 }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) {
        try write(bytes, deadline: deadline, readingAhead: 0)
    }

    /// The socket reads ahead for it: it keeps the peer's records as
    /// ciphertext, given room for TLS's framing (22 bytes a record of up
    /// to 16 KiB) on top of `limit`, and `read` decrypts them later.
    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?, readingAhead limit: Int) throws(TransportError) {
        owner.check(description)
        let ciphertextLimit = limit > 0 ? limit + limit / 256 + Self.transferBytes : 0
        var offset = 0
        while offset < bytes.count {
            guard let ssl else { throw .channelClosed }
            // One record at a time, so at most one record of ciphertext waits in memory.
            let piece = min(bytes.count - offset, 16_384)
            OpenSSLErrorQueue.clear()
            let count = SSL_write(ssl, bytes.baseAddress! + offset, Int32(piece))
            let failure = count > 0 ? nil : classify(status: SSL_get_error(ssl, count), operation: "write")
            try flushReporting(failure, deadline: deadline, readingAhead: ciphertextLimit)
            offset += Int(count)
        }
    }

    /// Decrypted bytes that OpenSSL holds (`SSL_pending`), and whole records
    /// that wait in the incoming BIO, count as readable without a look at
    /// the socket.
    public func waitReadable(
        orWake wake: Int32?, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> ChannelReadiness {
        owner.check(description)
        guard let ssl else { throw .channelClosed }
        if pendingFailure != nil || SSL_pending(ssl) > 0 { return .readable }
        if BIO_ctrl_pending(incoming) > 0 {
            // Decrypts what has arrived without taking it: a whole record
            // makes the channel readable, part of one does not.
            var byte: UInt8 = 0
            OpenSSLErrorQueue.clear()
            let count = SSL_peek(ssl, &byte, 1)
            let status = SSL_get_error(ssl, count)
            if count <= 0, status != SSL_ERROR_WANT_READ, status != SSL_ERROR_ZERO_RETURN {
                pendingFailure = classify(status: status, operation: "read")
            }
            try flushReporting(nil, deadline: deadline)
            if count > 0 || status != SSL_ERROR_WANT_READ { return .readable }
        }
        return try socket.waitReadable(orWake: wake, deadline: deadline)
    }

    /// Sends `close_notify` if the socket takes it at once, then frees the
    /// `SSL` and closes the socket. Idempotent.
    public func close() {
        owner.check(description)
        guard let ssl else { return }
        if established, pendingFailure == nil {
            OpenSSLErrorQueue.clear()
            _ = SSL_shutdown(ssl)
            try? flush(deadline: .now)
        }
        OpenSSLErrorQueue.clear()
        SSL_free(ssl)
        self.ssl = nil
        socket.close()
    }

    /// Moves what OpenSSL wrote to the socket; then throws `failure`, if
    /// any. A failure to send is reported only when there is no `failure`.
    private func flushReporting(_ failure: TransportError?, deadline: ContinuousClock.Instant?, readingAhead limit: Int = 0) throws(TransportError) {
        do { try flush(deadline: deadline, readingAhead: limit) } catch { throw failure ?? error }
        if let failure { throw failure }
    }

    private func flush(deadline: ContinuousClock.Instant?, readingAhead limit: Int = 0) throws(TransportError) {
        while BIO_ctrl_pending(outgoing) > 0 {
            let count = BIO_read(outgoing, transfer.baseAddress, Int32(transfer.count))
            guard count > 0 else { return }
            try socket.write(UnsafeRawBufferPointer(rebasing: transfer[..<Int(count)]), deadline: deadline, readingAhead: limit)
        }
    }

    /// Reads what the socket has (waiting until `deadline`) into the
    /// incoming BIO. False when the peer closed the socket.
    private func fill(deadline: ContinuousClock.Instant?, waitingFor what: String) throws(TransportError) -> Bool {
        let count: Int
        do { count = try socket.read(into: transfer, deadline: deadline) } catch .timedOut {
            throw .timedOut(waitingFor: what)
        }
        guard count > 0 else { return false }
        guard BIO_write(incoming, transfer.baseAddress, Int32(count)) == Int32(count) else {
            throw .tls(operation: "buffering", peer: socket.description, details: OpenSSLErrorQueue.drain())
        }
        return true
    }

    /// The error for a failed `SSL_*` call whose `SSL_get_error` is
    /// `status`, with OpenSSL's queued errors.
    private func classify(status: Int32, operation: String) -> TransportError {
        TLSFailure.error(status: status, errors: OpenSSLErrorQueue.drainCodes(), operation: operation, peer: socket.description)
    }
}
