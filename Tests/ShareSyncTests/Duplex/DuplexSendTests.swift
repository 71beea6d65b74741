import Testing
import TestSupport
@testable import ShareSync

/// Both ends of a session write large frames at the same moment, more than
/// the kernel's buffers hold, and only then read: each end's send keeps
/// reading what the other sends, so neither waits on the other, and each
/// receives exactly what the other sent.
@Suite(.timeLimit(.minutes(1))) struct DuplexSendTests {
    /// 8 frames of 1 MiB each way; the sends and reads of each end must all
    /// be done within `budget`, which a stalled pair never meets.
    private func exchange(over pair: ChannelPair) throws {
        defer { pair.close() }
        let budget = Duration.seconds(20)
        let leftFrames = DuplexTraffic.batches(count: 8, payloadBytes: 1 << 20, seed: 41)
        let rightFrames = DuplexTraffic.batches(count: 8, payloadBytes: 1 << 20, seed: 42)
        let left = pair.left, right = pair.right
        let deadline = after(budget)
        let leftEnd = BackgroundThread { try DuplexTraffic.sendAllThenReceive(over: left, leftFrames, expecting: 8, deadline: deadline) }
        let rightEnd = BackgroundThread { try DuplexTraffic.sendAllThenReceive(over: right, rightFrames, expecting: 8, deadline: deadline) }
        let leftGot = try leftEnd.join("the left end sent and received its frames", timeout: budget + .seconds(10))
        let rightGot = try rightEnd.join("the right end sent and received its frames", timeout: budget + .seconds(10))
        #expect(leftGot == rightFrames.map(DuplexTraffic.digest))
        #expect(rightGot == leftFrames.map(DuplexTraffic.digest))
    }

    @Test func overAUnixSocket() throws {
        try exchange(over: try ChannelPair.unixSocket())
    }

    @Test func overTLS() throws {
        try exchange(over: try ChannelPair.tls())
    }

    @Test func overPipes() throws {
        try exchange(over: ChannelPair.pipes())
    }

    /// `exec:cat` echoes: the command blocks writing to us as soon as we
    /// stop reading, and then stops reading what we write.
    @Test func throughACommandThatEchoes() throws {
        let channel = try CommandChannel(command: "exec cat")
        defer { channel.close() }
        let frames = DuplexTraffic.batches(count: 8, payloadBytes: 1 << 20, seed: 43)
        let budget = Duration.seconds(20)
        let deadline = after(budget)
        let end = BackgroundThread { try DuplexTraffic.sendAllThenReceive(over: channel, frames, expecting: 8, deadline: deadline) }
        #expect(try end.join("the frames came back through cat", timeout: budget + .seconds(10)) == frames.map(DuplexTraffic.digest))
    }
}
