import COpenSSL

/// A TLS 1.3 session over a connected `SocketChannel`, both sides
/// authenticated by a shared `SyncKey` (see `TLSContext` for the exact
/// configuration).
///
/// OpenSSL never touches the socket: it reads and writes two memory BIOs,
/// and this class moves the bytes between them and the socket with the
/// socket's deadlines, `MSG_NOSIGNAL` and `EINTR` handling. So a deadline
/// bounds the handshake, reads and writes alike, and `SIGPIPE` is never
/// raised. Everything OpenSSL allocates (`SSL`, its BIOs and PSK sessions)
/// is freed on every path, failed handshakes included.
///
/// After the handshake, only `writeSome` waits on the socket for room: it
/// encrypts one record at a time, and keeps the ciphertext the socket
/// could not take yet (at most one record's, `hasPendingOutput`) for
/// `waitReady` and the next `writeSome` to send (`CiphertextPump`), so a
/// thread that writes can always go back to reading. Reads send what
/// OpenSSL wrote only as far as the socket takes it at once.
///
/// The peer closing the socket without TLS's `close_notify` reads as the
/// end of the stream (0), like `close_notify` itself: sync's frames carry
/// their own lengths and checksums, so a truncated stream is detected one
/// layer up, and cutting a connection is something any attacker on the
/// path can do anyway.
///
/// `@unchecked Sendable`: like every `ByteChannel`, one thread at a time
/// uses it, and only that thread touches its `SSL` object, which OpenSSL
/// does not allow two threads to use at once.
public final class TLSChannel: ByteChannel, @unchecked Sendable {
    public let description: String
    private let socket: SocketChannel
    /// Keeps the `SSL_CTX` and the key alive as long as `ssl`.
    private let context: TLSContext
    /// The `SSL`, owner of both BIOs; nil once closed.
    private var ssl: OpaquePointer?
    /// Moves the ciphertext between OpenSSL's BIOs and the socket.
    private let pump: CiphertextPump
    /// Whether the handshake completed (then `close` sends `close_notify`).
    private var established = false
    /// A TLS failure that `waitReady` found while decrypting ahead; the
    /// next `read` throws it.
    private var pendingFailure: TransportError?

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
        pump = CiphertextPump(socket: socket, incoming: incoming, outgoing: outgoing)
    }

    deinit { close() }

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
            guard try pump.fill(deadline: deadline, waitingFor: "the TLS handshake with \(socket.description)") else {
                throw .peerClosed(peer: socket.description)
            }
        }
    }

    public func read(
        into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> Int {
        precondition(!buffer.isEmpty, "read(into:) needs room for at least one byte")
        if let pendingFailure { throw pendingFailure }
        while true {
            guard let ssl else { throw .channelClosed }
            OpenSSLErrorQueue.clear()
            let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
            let status = SSL_get_error(ssl, count)
            if count <= 0, status != SSL_ERROR_WANT_READ, status != SSL_ERROR_ZERO_RETURN {
                try sendReporting(classify(status: status, operation: "read"))
            }
            // What OpenSSL wrote meanwhile goes out as far as the socket
            // takes it; a failure to send shows in the next write.
            try? pump.sendAvailable()
            if count > 0 { return Int(count) }
            if status == SSL_ERROR_ZERO_RETURN { return 0 }
            guard try pump.fill(deadline: deadline, waitingFor: "data from \(description)") else { return 0 }
        }
    }

    /// Encrypts records of `bytes` while the socket takes all their
    /// ciphertext at once; the first record's is taken even when the socket
    /// takes only part of it, the rest waiting as pending output. Pending
    /// output from before goes first: until it is all sent, nothing new is
    /// taken, and the wait for the socket to take it is what `deadline`
    /// bounds.
    public func writeSome(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) -> Int {
        precondition(!bytes.isEmpty, "writeSome needs at least one byte")
        guard let ssl else { throw .channelClosed }
        try pump.flush(deadline: deadline, waitingFor: "\(description) to take the bytes written to it")
        var offset = 0
        repeat {
            // One record at a time, so at most one record of ciphertext waits in memory.
            let piece = min(bytes.count - offset, 16_384)
            OpenSSLErrorQueue.clear()
            let count = SSL_write(ssl, bytes.baseAddress! + offset, Int32(piece))
            if count <= 0 { try sendReporting(classify(status: SSL_get_error(ssl, count), operation: "write")) }
            try pump.sendAvailable()
            offset += Int(count)
        } while offset < bytes.count && !pump.hasPending
        return offset
    }

    public var hasPendingOutput: Bool { ssl != nil && pump.hasPending }

    /// Whole records already received count as readable without a look at
    /// the socket. When the socket has bytes, they are taken into OpenSSL's
    /// buffer, and the channel is readable once a whole record is there (or
    /// the stream ended, or failed). Pending output is sent whenever the
    /// socket has room, `writing` or not; a failure to send it makes the
    /// channel writable, and the next `writeSome` throws it.
    public func waitReady(
        reading: Bool, writing: Bool, orWake wake: Int32?, deadline: ContinuousClock.Instant?
    ) throws(TransportError) -> ChannelReady {
        guard ssl != nil else { throw .channelClosed }
        while true {
            try? pump.sendAvailable()
            let found = try readyNow(reading: reading, writing: writing)
            // Looks at the socket for what is not ready yet; waits only
            // when nothing is.
            let socketReady = try pump.socket.waitReady(
                reading: reading && !found.contains(.readable), writing: pump.hasPending && pump.sendFailure == nil, orWake: wake,
                deadline: found.isEmpty ? deadline : .now)
            if socketReady.contains(.readable) { try pump.fillAvailable() }
            if socketReady.contains(.writable) { try? pump.sendAvailable() }
            var ready = try readyNow(reading: reading, writing: writing)
            if socketReady.contains(.woken) { ready.insert(.woken) }
            if !ready.isEmpty || socketReady.isEmpty { return ready }
        }
    }

    /// What is ready without a look at the socket: something to read, and
    /// room to write (no pending output, or a failure to report).
    private func readyNow(reading: Bool, writing: Bool) throws(TransportError) -> ChannelReady {
        var ready: ChannelReady = []
        if reading, try hasSomethingToRead() { ready.insert(.readable) }
        if writing, !pump.hasPending || pump.sendFailure != nil { ready.insert(.writable) }
        return ready
    }

    /// Whether a `read` finds something without waiting for the socket:
    /// decrypted bytes (`SSL_pending`), a whole record in the incoming BIO
    /// (decrypted by a peek that takes nothing), a failure (kept for `read`
    /// to throw), or the end of the stream.
    private func hasSomethingToRead() throws(TransportError) -> Bool {
        guard let ssl else { throw .channelClosed }
        if pendingFailure != nil || SSL_pending(ssl) > 0 { return true }
        if pump.hasIncoming {
            var byte: UInt8 = 0
            OpenSSLErrorQueue.clear()
            let count = SSL_peek(ssl, &byte, 1)
            let status = SSL_get_error(ssl, count)
            if count <= 0, status != SSL_ERROR_WANT_READ, status != SSL_ERROR_ZERO_RETURN {
                pendingFailure = classify(status: status, operation: "read")
            }
            try? pump.sendAvailable()
            if count > 0 || status != SSL_ERROR_WANT_READ { return true }
        }
        return pump.ended || pump.readFailure != nil
    }

    /// Sends `close_notify` if the socket takes it at once, then frees the
    /// `SSL` and closes the socket. Idempotent.
    public func close() {
        guard let ssl else { return }
        if established, pendingFailure == nil {
            OpenSSLErrorQueue.clear()
            _ = SSL_shutdown(ssl)
            try? pump.flush(deadline: .now, waitingFor: "close_notify to go out")
        }
        OpenSSLErrorQueue.clear()
        SSL_free(ssl)
        self.ssl = nil
        socket.close()
    }

    /// Sends what OpenSSL wrote (an alert) as far as the socket takes it
    /// now, then throws `failure`.
    private func sendReporting(_ failure: TransportError) throws(TransportError) -> Never {
        try? pump.sendAvailable()
        throw failure
    }

    /// Sends what OpenSSL wrote, waiting until `deadline` (the handshake);
    /// then throws `failure`, if any. A failure to send is reported only
    /// when there is no `failure`.
    private func flushReporting(_ failure: TransportError?, deadline: ContinuousClock.Instant?) throws(TransportError) {
        do { try pump.flush(deadline: deadline, waitingFor: "\(socket.description) to take the bytes written to it") } catch {
            throw failure ?? error
        }
        if let failure { throw failure }
    }

    /// The error for a failed `SSL_*` call whose `SSL_get_error` is
    /// `status`, with OpenSSL's queued errors.
    private func classify(status: Int32, operation: String) -> TransportError {
        TLSFailure.error(status: status, errors: OpenSSLErrorQueue.drainCodes(), operation: operation, peer: socket.description)
    }
}
