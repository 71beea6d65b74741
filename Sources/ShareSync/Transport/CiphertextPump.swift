import COpenSSL

/// Moves a `TLSChannel`'s ciphertext between OpenSSL's two memory BIOs and
/// the socket: in from the socket to the incoming BIO, out from the
/// outgoing BIO to the socket.
///
/// Ciphertext that the socket has no room for is kept (`hasPending`) and
/// goes out with the next send: nothing is lost, nothing is sent twice.
/// The moves that do not wait (`sendAvailable`, `fillAvailable`) remember
/// a failure, or the end of the stream, for the call that reports it, so a
/// wait never throws a failure that the data before it should come first.
///
/// Owned by its `TLSChannel`, and used only while the channel's `SSL`, which
/// owns the BIOs, is alive; one thread at a time, like the channel.
final class CiphertextPump {
    let socket: SocketChannel
    /// Ciphertext from the socket, for OpenSSL to read.
    private let incoming: OpaquePointer
    /// Ciphertext from OpenSSL, for the socket.
    private let outgoing: OpaquePointer
    /// Carries ciphertext from the socket to `incoming`.
    private let transfer: UnsafeMutableRawBufferPointer
    /// Ciphertext taken from `outgoing` for the socket.
    private let outbound: UnsafeMutableRawBufferPointer
    /// The bytes of `outbound` that the socket has not taken yet.
    private var unsent = 0..<0
    /// Whether a read that did not wait found the end of the stream.
    private(set) var ended = false
    /// What a read that did not wait failed with; `fill` throws it.
    private(set) var readFailure: TransportError?
    /// What a send failed with; every later send throws it.
    private(set) var sendFailure: TransportError?

    /// The largest TLS record, with its header and expansion: the most
    /// ciphertext moved at once.
    private static let transferBytes = 16_384 + 2_048

    init(socket: SocketChannel, incoming: OpaquePointer, outgoing: OpaquePointer) {
        self.socket = socket
        self.incoming = incoming
        self.outgoing = outgoing
        transfer = .allocate(byteCount: Self.transferBytes, alignment: 1)
        outbound = .allocate(byteCount: Self.transferBytes, alignment: 1)
    }

    deinit {
        transfer.deallocate()
        outbound.deallocate()
    }

    /// Whether ciphertext waits for the socket: taken from `outgoing` and
    /// not sent, or still in `outgoing`.
    var hasPending: Bool { !unsent.isEmpty || BIO_ctrl_pending(outgoing) > 0 }

    /// Whether whole or partial records wait in `incoming` for OpenSSL.
    var hasIncoming: Bool { BIO_ctrl_pending(incoming) > 0 }

    /// Sends pending ciphertext as far as the socket takes it now, without
    /// waiting; what it does not take stays pending.
    func sendAvailable() throws(TransportError) {
        if let sendFailure { throw sendFailure }
        while true {
            if unsent.isEmpty {
                guard BIO_ctrl_pending(outgoing) > 0 else { return }
                let count = BIO_read(outgoing, outbound.baseAddress, Int32(outbound.count))
                guard count > 0 else { return }
                unsent = 0..<Int(count)
            }
            let sent: Int
            do { sent = try socket.sendNow(UnsafeRawBufferPointer(rebasing: outbound[unsent])) } catch {
                sendFailure = error
                throw error
            }
            guard sent > 0 else { return }
            unsent = unsent.lowerBound + sent..<unsent.upperBound
        }
    }

    /// Sends all pending ciphertext, waiting for room until `deadline`, then
    /// throws `.timedOut(waitingFor: what)`.
    func flush(deadline: ContinuousClock.Instant?, waitingFor what: String) throws(TransportError) {
        try sendAvailable()
        while hasPending {
            guard try socket.waitReady(reading: false, writing: true, orWake: nil, deadline: deadline).contains(.writable) else {
                throw .timedOut(waitingFor: what)
            }
            try sendAvailable()
        }
    }

    /// Reads what the socket has into `incoming`, waiting until `deadline`,
    /// then throws `.timedOut(waitingFor: what)`. False at the end of the
    /// stream.
    func fill(deadline: ContinuousClock.Instant?, waitingFor what: String) throws(TransportError) -> Bool {
        if let readFailure { throw readFailure }
        guard !ended else { return false }
        let count: Int
        do { count = try socket.read(into: transfer, deadline: deadline) } catch .timedOut {
            throw .timedOut(waitingFor: what)
        }
        return try takeIn(count)
    }

    /// Reads what the socket has now into `incoming`, without waiting. The
    /// end of the stream and a failure are kept (`ended`, `readFailure`).
    func fillAvailable() throws(TransportError) {
        guard !ended, readFailure == nil else { return }
        let count: Int?
        do { count = try socket.readNow(into: transfer) } catch {
            readFailure = error
            return
        }
        if let count { _ = try takeIn(count) }
    }

    /// Hands the first `count` bytes of `transfer` to OpenSSL; false, and
    /// `ended`, when `count` is 0.
    private func takeIn(_ count: Int) throws(TransportError) -> Bool {
        guard count > 0 else {
            ended = true
            return false
        }
        guard BIO_write(incoming, transfer.baseAddress, Int32(count)) == Int32(count) else {
            throw .tls(operation: "buffering", peer: socket.description, details: OpenSSLErrorQueue.drain())
        }
        return true
    }
}
