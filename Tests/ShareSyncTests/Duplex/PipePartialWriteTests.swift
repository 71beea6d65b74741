import Glibc
import Testing
import TestSupport
@testable import ShareSync

/// Pipes (`--stdio`, `exec:`) are written in pieces of `PIPE_BUF` bytes
/// while `poll` says there is room: a partial write fills the pipe and
/// says exactly how much it took.
@Suite(.timeLimit(.minutes(1))) struct PipePartialWriteTests {
    /// `F_SETPIPE_SZ` from Linux's <fcntl.h> (`F_LINUX_SPECIFIC_BASE + 7`),
    /// which the Glibc module does not export (it needs `_GNU_SOURCE`).
    private static let setPipeSize: Int32 = 1024 + 7

    /// A pipe's read and write ends, holding 64 KiB (set, not assumed).
    private func makePipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        #expect(fcntl(ends[1], Self.setPipeSize, 65_536) == 65_536)
        return (ends[0], ends[1])
    }

    @Test func aPartialWriteFillsThePipeAndThePeerReadsExactlyThat() throws {
        let toPeer = makePipe(), fromPeer = makePipe()
        let channel = StdioChannel(input: fromPeer.read, output: toPeer.write)
        let peer = StdioChannel(input: toPeer.read, output: fromPeer.write)
        defer { [channel, peer].forEach { $0.close() } }
        var random = SeededGenerator(seed: 7)
        let bytes = DuplexTraffic.bytes(1 << 20, using: &random)
        let taken = try bytes.withUnsafeBytes { try channel.writeSome($0, deadline: after(.seconds(60))) }
        // Sixteen pieces of PIPE_BUF (4096) bytes: exactly what the pipe holds.
        #expect(taken == 65_536)
        #expect(try channel.waitReady(reading: false, writing: true, orWake: nil, deadline: after(.milliseconds(100))) == [])
        #expect(throws: TransportError.timedOut(waitingFor: "standard output's reader to take the bytes written to it")) {
            _ = try bytes[taken...].withUnsafeBytes { try channel.writeSome($0, deadline: after(.milliseconds(100))) }
        }
        let received = try peer.read(exactly: taken, deadline: after(.seconds(60)))
        #expect(DuplexTraffic.Fingerprint(received) == DuplexTraffic.Fingerprint(bytes[..<taken]))
        #expect(try peer.waitReady(reading: true, writing: false, orWake: nil, deadline: after(.milliseconds(100))) == [])
        #expect(try channel.waitReady(reading: false, writing: true, orWake: nil, deadline: after(.seconds(60))) == [.writable])
    }

    @Test func aWaitWatchesInputForReadingAndOutputForWriting() throws {
        let toPeer = makePipe(), fromPeer = makePipe()
        let channel = StdioChannel(input: fromPeer.read, output: toPeer.write)
        let peer = StdioChannel(input: toPeer.read, output: fromPeer.write)
        defer { [channel, peer].forEach { $0.close() } }
        var wake: [Int32] = [-1, -1]
        #expect(pipe(&wake) == 0)
        defer { wake.forEach { close($0) } }
        #expect(try channel.waitReady(reading: true, writing: false, orWake: wake[0], deadline: after(.milliseconds(50))) == [])
        #expect(try channel.waitReady(reading: true, writing: true, orWake: wake[0], deadline: after(.seconds(60))) == [.writable])
        try peer.write([9], deadline: after(.seconds(60)))
        #expect(try channel.waitReady(reading: true, writing: true, orWake: wake[0], deadline: after(.seconds(60))) == [.readable, .writable])
        #expect(write(wake[1], [1], 1) == 1)
        #expect(try channel.waitReady(reading: true, writing: false, orWake: wake[0], deadline: after(.seconds(60))) == [.readable, .woken])
    }

    /// `CommandChannel` runs on the same pipes: `exec cat` sends back what
    /// it is given.
    @Test func aCommandChannelWritesSomeAndWaitsForBoth() throws {
        let channel = try CommandChannel(command: "exec cat")
        defer { channel.close() }
        let bytes: [UInt8] = Array("hello, cat".utf8)
        #expect(try bytes.withUnsafeBytes { try channel.writeSome($0, deadline: after(.seconds(60))) } == bytes.count)
        #expect(try channel.waitReady(reading: true, writing: false, orWake: nil, deadline: after(.seconds(60))) == [.readable])
        #expect(try channel.waitReady(reading: true, writing: true, orWake: nil, deadline: after(.seconds(60))) == [.readable, .writable])
        #expect(try channel.read(exactly: bytes.count, deadline: after(.seconds(60))) == bytes)
    }
}
