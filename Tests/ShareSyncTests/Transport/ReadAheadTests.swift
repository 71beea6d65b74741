import Glibc
import SharePrimitives
import Testing
import TestSupport
@testable import ShareSync
import TestTraits

/// Writes that keep reading (`ByteChannel.write(_:deadline:readingAhead:)`):
/// two ends that each write megabytes before reading both finish, and what
/// the peer sent meanwhile, its hang-up included, reaches the reads after,
/// over a Unix socket, TLS and a pair of pipes (`--stdio`, `exec:`) alike.
@Suite(.hangDeadline) struct ReadAheadTests {
    enum Transport: CaseIterable, CustomStringConvertible {
        case unix, tls, pipes
        var description: String {
            switch self {
            case .unix: "Unix socket"
            case .tls: "TLS over TCP"
            case .pipes: "pipes"
            }
        }
    }

    /// Far more than a connection buffers: 64 KiB for a pipe, some hundreds
    /// of KiB for a Unix socket, up to about 10 MiB for TCP over loopback.
    static func megabytes(_ transport: Transport) -> Int { transport == .tls ? 32 << 20 : 3 << 20 }

    /// Two connected ends of `transport`: the near one for the test's
    /// thread, the far one waiting for the thread that runs it to take it.
    static func pair(_ transport: Transport, in directory: TemporaryDirectory) throws -> (near: any ByteChannel, far: Handoff<any ByteChannel>) {
        switch transport {
        case .unix:
            let listener = try Listener(listeningOn: .unix(path: directory.appending("s.sock")))
            defer { listener.close() }
            let near = try SocketChannel.connect(to: listener.endpoint, deadline: after(.seconds(30)))
            return (near, Handoff(try listener.accept(deadline: after(.seconds(30)))))
        case .pipes:
            var toFar: [Int32] = [-1, -1], toNear: [Int32] = [-1, -1]
            guard pipe(&toFar) == 0, pipe(&toNear) == 0 else { throw TransportError.system(operation: "pipe", errno: errno) }
            return (StdioChannel(input: toNear[0], output: toFar[1]), Handoff(StdioChannel(input: toFar[0], output: toNear[1])))
        case .tls:
            let key = SyncKey.generate()
            let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
            let endpoint = listener.endpoint
            let far = BackgroundThread { () throws -> TLSChannel in
                listener.adoptOnCurrentThread()
                defer { listener.close() }
                return try TLSChannel.server(over: try listener.accept(deadline: after(.seconds(30))), key: key, deadline: after(.seconds(30)))
            }
            let socket = try SocketChannel.connect(to: endpoint, deadline: after(.seconds(30)))
            let near = try TLSChannel.client(over: socket, key: key, deadline: after(.seconds(30)))
            return (near, Handoff(try far.join("the TLS server's handshake")))
        }
    }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        let words = (0..<(count + 7) / 8).map { _ in random.next() }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }

    @Test(arguments: Transport.allCases) func bothEndsWritingMegabytesAtOnceBothFinish(_ transport: Transport) throws {
        let directory = TemporaryDirectory("read-ahead")
        let (near, far) = try Self.pair(transport, in: directory)
        defer { near.close() }
        let count = Self.megabytes(transport)
        let fromNear = Self.bytes(count, seed: 1), fromFar = Self.bytes(count, seed: 2)
        // Each end writes all of its bytes, and only then reads.
        let farEnd = BackgroundThread { () throws -> [UInt8] in
            let far = far.take()
            far.adoptOnCurrentThread()
            defer { far.close() }
            try fromFar.withUnsafeBytes { try far.write($0, deadline: after(.seconds(20)), readingAhead: count) }
            return try far.read(exactly: count, deadline: after(.seconds(20)))
        }
        try fromNear.withUnsafeBytes { try near.write($0, deadline: after(.seconds(20)), readingAhead: count) }
        let atNear = try near.read(exactly: count, deadline: after(.seconds(20)))
        #expect(atNear == fromFar, "\(transport): the near end read \(atNear.count) bytes")
        let atFar = try farEnd.join("the far end's write and read")
        #expect(atFar == fromNear, "\(transport): the far end read \(atFar.count) bytes")
    }

    @Test(arguments: Transport.allCases) func aPeerThatHangsUpMidWriteFailsTheWriteAndItsLastBytesStillArrive(_ transport: Transport) throws {
        let directory = TemporaryDirectory("read-ahead")
        let (near, far) = try Self.pair(transport, in: directory)
        defer { near.close() }
        let last = Self.bytes(1000, seed: 3)
        // The far end waits until the near end's write has filled its
        // socket's buffer (so the write waits for room), sends its last
        // bytes, and hangs up once the waiting write has read them ahead.
        // It watches the near end's descriptor, a number, never the near
        // channel, which is the test thread's.
        let nearDescriptor = Self.descriptor(of: near)
        let farEnd = BackgroundThread { () throws -> Void in
            let far = far.take()
            far.adoptOnCurrentThread()
            let farDescriptor = Self.descriptor(of: far)
            try Deadline.block(until: "the near end's write fills the far end's buffer", timeout: .seconds(20)) {
                try Self.bytesWaiting(on: farDescriptor) >= 32 * 1024
            }
            try far.write(last, deadline: after(.seconds(20)))
            try Deadline.block(until: "the near end's write reads ahead", timeout: .seconds(20)) { try Self.bytesWaiting(on: nearDescriptor) == 0 }
            far.close()
        }
        let big = [UInt8](repeating: 0x5A, count: 64 << 20)
        let error = #expect(throws: TransportError.self) {
            try big.withUnsafeBytes { try near.write($0, deadline: after(.seconds(60)), readingAhead: 4 << 20) }
        }
        try farEnd.join("the far end hung up")
        // The write meets the hang-up, not its deadline.
        #expect(Self.isHangUp(error), "\(transport): \(String(describing: error))")
        // The reads give what the peer sent before it went, then the end:
        // 0, or a reset (the peer left bytes unread), which a socket reports once.
        #expect(try near.read(exactly: 1000, deadline: after(.seconds(20))) == last)
        var byte: UInt8 = 0
        let end = Result { try withUnsafeMutableBytes(of: &byte) { try near.read(into: $0, deadline: after(.seconds(20))) } }
        switch end {
        case .success(let count): #expect(count == 0, "\(transport): \(count) bytes after the peer's last")
        case .failure(let failure): #expect(Self.isHangUp(failure as? TransportError), "\(transport): \(failure)")
        }
    }

    /// The descriptor that `channel` reads.
    static func descriptor(of channel: any ByteChannel) -> Int32 {
        switch channel {
        case let socket as SocketChannel: socket.descriptor
        case let tls as TLSChannel: tls.descriptor
        case let pipes as StdioChannel: pipes.input
        default: preconditionFailure("no descriptor for \(channel)")
        }
    }

    /// How many bytes wait unread on `descriptor` (`FIONREAD`).
    static func bytesWaiting(on descriptor: Int32) throws -> Int {
        var count: Int32 = 0
        guard ioctl(descriptor, UInt(FIONREAD), &count) == 0 else { throw TransportError.system(operation: "ioctl(FIONREAD)", errno: errno) }
        return Int(count)
    }

    static func isHangUp(_ error: TransportError?) -> Bool {
        switch error {
        case .peerClosed?, .connectionReset?: true
        default: false
        }
    }
}
