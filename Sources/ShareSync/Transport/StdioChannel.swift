import Glibc
import SharePrimitives

/// The process's standard input and output as a `ByteChannel`, for
/// `ssh host sharelog serve --stdio`: ssh carries the bytes and does the
/// authentication and encryption.
///
/// The descriptors are shared with the parent (a terminal, ssh's pipes), so
/// they are left blocking: every read and write first waits in `poll` under
/// its deadline, and a write is cut into pieces of at most `PIPE_BUF` bytes,
/// which a writable pipe takes without blocking. A closed reader gives
/// `TransportError.peerClosed`, never `SIGPIPE` (`send` with `MSG_NOSIGNAL`
/// when the output is a socket, `SIGPIPE` blocked around `write` otherwise).
/// A write asked to read ahead keeps what arrives on the input while the
/// output has no room (`ReadAhead`), and reads return it first.
///
/// Not `Sendable`: as for `SocketChannel`, it belongs to one thread at a
/// time, and only that thread touches its descriptors. Debug builds check
/// every call.
public final class StdioChannel: ByteChannel {
    public let description: String
    /// The descriptors read and written; -1 once closed.
    private(set) var input: Int32
    private var output: Int32
    /// Whether `output` is a socket (`send` works on it).
    private let outputIsSocket: Bool
    /// What the peer sent while a write waited for room.
    private var readAhead = ReadAhead()
    /// The thread that may use the channel.
    private var owner = OwningThread()

    /// A channel that reads `input` and writes `output`: by default
    /// standard input and output. Takes ownership of both.
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
        var status = stat()
        outputIsSocket = fstat(output, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
        description = input == STDIN_FILENO && output == STDOUT_FILENO ? "stdio" : "descriptors \(input)/\(output)"
    }

    /// Whichever thread drops the last reference is alone with the channel.
    deinit {
        owner.adoptCurrent()
        close()
    }

    public func adoptOnCurrentThread() {
        owner.adoptCurrent()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) -> Int {
        precondition(!buffer.isEmpty, "read(into:) needs room for at least one byte")
        owner.check(description)
        if let count = try readAhead.take(into: buffer) { return count }
        while true {
            guard input >= 0 else { throw .channelClosed }
            guard try Posix.wait(input, for: Int16(POLLIN), deadline: deadline) else {
                throw .timedOut(waitingFor: "data on standard input")
            }
            switch Posix.read(input, into: buffer) {
            case .transferred(let count): return count
            case .wouldBlock: continue
            case .failed(let code): throw readFailure(code)
            }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) {
        try write(bytes, deadline: deadline, readingAhead: 0)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?, readingAhead limit: Int) throws(TransportError) {
        owner.check(description)
        var offset = 0
        while offset < bytes.count {
            guard output >= 0 else { throw .channelClosed }
            let source = input
            switch try Posix.waitWritable(output, orReadable: readAhead.wants(upTo: limit) ? source : nil, deadline: deadline) {
            case .writable: break
            case .readable:
                readAhead.fill(upTo: limit, { Posix.read(source, into: $0) }, failure: { readFailure($0) })
                continue
            case .timedOut: throw .timedOut(waitingFor: "standard output's reader to take the bytes written to it")
            }
            let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<min(bytes.count, offset + Int(PIPE_BUF))])
            switch outputIsSocket ? Posix.send(output, piece) : Posix.writeWithoutSIGPIPE(output, piece) {
            case .transferred(let count): offset += count
            case .wouldBlock: continue
            case .failed(EPIPE): throw .peerClosed(peer: description)
            case .failed(ECONNRESET): throw .connectionReset(peer: description)
            case .failed(let code): throw .system(operation: "write to standard output", errno: code)
            }
        }
    }

    public func waitReadable(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(TransportError) -> ChannelReadiness {
        owner.check(description)
        guard input >= 0 else { throw .channelClosed }
        if !readAhead.isEmpty { return .readable }
        return try Posix.waitReadable(input, orWake: wake, deadline: deadline)
    }

    /// Ends the stream. Standard input and output (descriptors 0 to 2) are
    /// pointed at /dev/null rather than closed, so the peer sees the end of
    /// the stream while the numbers stay taken: a file opened later can
    /// never become "standard output" and receive stray prints.
    public func close() {
        owner.check(description)
        for descriptor in Set([input, output]) where descriptor >= 0 {
            Self.release(descriptor)
        }
        input = -1
        output = -1
    }

    private func readFailure(_ code: Int32) -> TransportError {
        code == ECONNRESET ? .connectionReset(peer: description) : .system(operation: "read from standard input", errno: code)
    }

    private static func release(_ descriptor: Int32) {
        guard descriptor <= STDERR_FILENO else { return Posix.close(descriptor) }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        if null >= 0 {
            _ = dup2(null, descriptor)
            Posix.close(null)
        } else {
            Posix.close(descriptor)
        }
    }
}
