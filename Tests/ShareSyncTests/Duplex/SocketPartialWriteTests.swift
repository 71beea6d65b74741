import Glibc
import Testing
import TestSupport
@testable import ShareSync

/// A socket's partial write takes what the kernel has room for and says
/// exactly how much, and its wait reports readable, writable and woken as
/// they are.
@Suite(.timeLimit(.minutes(1))) struct SocketPartialWriteTests {
    @Test func aPartialWriteTakesWhatFitsAndThePeerReadsExactlyThat() throws {
        let pair = try ChannelPair.unixSocket()
        defer { pair.close() }
        var random = SeededGenerator(seed: 5)
        // Far more than a Unix socket's buffers hold.
        let bytes = DuplexTraffic.bytes(8 << 20, using: &random)
        let taken = try bytes.withUnsafeBytes { try pair.left.writeSome($0, deadline: after(.seconds(60))) }
        #expect(taken < bytes.count, "a socket buffer took all 8 MiB at once")
        // Full now: no room, and a write that needs room gives up at its deadline.
        #expect(try pair.left.waitReady(reading: false, writing: true, orWake: nil, deadline: after(.milliseconds(100))) == [])
        #expect(throws: TransportError.timedOut(waitingFor: "\(pair.left) to take the bytes written to it")) {
            _ = try bytes[taken...].withUnsafeBytes { try pair.left.writeSome($0, deadline: after(.milliseconds(100))) }
        }
        let received = try pair.right.read(exactly: taken, deadline: after(.seconds(60)))
        #expect(DuplexTraffic.Fingerprint(received) == DuplexTraffic.Fingerprint(bytes[..<taken]))
        #expect(try pair.right.waitReady(reading: true, writing: false, orWake: nil, deadline: after(.milliseconds(100))) == [])
        // Read empty, the socket has room again.
        #expect(try pair.left.waitReady(reading: false, writing: true, orWake: nil, deadline: after(.seconds(20))) == [.writable])
    }

    @Test func aWaitReportsReadableAndWritableAtOnce() throws {
        let pair = try ChannelPair.unixSocket()
        defer { pair.close() }
        #expect(try pair.left.waitReady(reading: true, writing: false, orWake: nil, deadline: after(.milliseconds(50))) == [])
        try pair.right.write([1, 2, 3], deadline: after(.seconds(60)))
        #expect(try pair.left.waitReady(reading: true, writing: true, orWake: nil, deadline: after(.seconds(60))) == [.readable, .writable])
        #expect(try pair.left.waitReady(reading: false, writing: true, orWake: nil, deadline: after(.seconds(60))) == [.writable])
        #expect(try pair.left.waitReady(reading: true, writing: false, orWake: nil, deadline: after(.seconds(60))) == [.readable])
    }

    @Test func theWakeDescriptorEndsAWaitForBoth() throws {
        let pair = try ChannelPair.unixSocket()
        defer { pair.close() }
        var wake: [Int32] = [-1, -1]
        #expect(pipe(&wake) == 0)
        defer { wake.forEach { close($0) } }
        // Fill the socket, so that neither reading nor writing is ready.
        var random = SeededGenerator(seed: 6)
        let bytes = DuplexTraffic.bytes(8 << 20, using: &random)
        _ = try bytes.withUnsafeBytes { try pair.left.writeSome($0, deadline: after(.seconds(60))) }
        let wakeRead = wake[0], left = pair.left
        let waiter = BackgroundThread { try left.waitReady(reading: true, writing: true, orWake: wakeRead, deadline: after(.seconds(60))) }
        #expect(write(wake[1], [1], 1) == 1)
        #expect(try waiter.join("the wake-up descriptor ended the wait") == [.woken])
    }
}
