import Glibc
import SharePrimitives
import Testing
import TestSupport
import ShareSync
import TestTraits

/// `--stdio` carries sync over two pipes, as ssh provides them.
@Suite(.hangDeadline) struct StdioChannelTests {
    /// A pipe's read and write ends.
    private func makePipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    @Test func bytesTravelBothWaysOverPipes() throws {
        let toChannel = makePipe(), fromChannel = makePipe()
        let channel = StdioChannel(input: toChannel.read, output: fromChannel.write)
        let peerOutput = StdioChannel(input: fromChannel.read, output: toChannel.write)
        defer { channel.close() }
        var random = SeededGenerator(seed: 3)
        let bytes = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        // The pipe holds less than this, so the write needs a reader at once.
        // The reader hands the peer's channel back when it is done: the
        // channel goes in a `Handoff`, since a closure can return `sending`
        // nothing it captured.
        let handoff = Handoff(peerOutput)
        let reader = BackgroundThread { () throws -> ([UInt8], StdioChannel) in
            let peerOutput = handoff.take()
            peerOutput.adoptOnCurrentThread()
            return (try peerOutput.read(exactly: bytes.count, deadline: after(.seconds(60))), peerOutput)
        }
        try channel.write(bytes, deadline: after(.seconds(60)))
        let (read, peer) = try reader.join("the peer read everything")
        peer.adoptOnCurrentThread()
        defer { peer.close() }
        #expect(read == bytes)
        try peer.write(Array("reply".utf8), deadline: after(.seconds(60)))
        #expect(try channel.read(exactly: 5, deadline: after(.seconds(60))) == Array("reply".utf8))
    }

    @Test func writingAfterTheReaderLeftIsAnErrorAndNotASignal() throws {
        let input = makePipe(), output = makePipe()
        defer { close(input.write) }
        close(output.read)
        let channel = StdioChannel(input: input.read, output: output.write)
        defer { channel.close() }
        // With SIGPIPE raised, the test process would die here.
        #expect(throws: TransportError.peerClosed(peer: "descriptors \(input.read)/\(output.write)")) {
            try channel.write([1, 2, 3], deadline: after(.seconds(60)))
        }
    }

    @Test func aReadOnASilentPipeEndsAtItsDeadline() throws {
        let input = makePipe(), output = makePipe()
        defer { close(input.write); close(output.read) }
        let channel = StdioChannel(input: input.read, output: output.write)
        let reader = BackgroundThread {
            channel.adoptOnCurrentThread()
            defer { channel.close() }
            return try channel.read(exactly: 1, deadline: after(.milliseconds(100)))
        }
        #expect(throws: TransportError.timedOut(waitingFor: "data on standard input")) {
            try reader.join("the read gave up", timeout: .seconds(30))
        }
    }
}
