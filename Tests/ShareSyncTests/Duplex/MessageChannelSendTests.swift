import Testing
import TestSupport
@testable import ShareSync

/// What a `MessageChannel` send does with a peer that breaks the rules:
/// the send still ends at its deadline, and the memory a peer can fill
/// while this side sends is bounded.
@Suite(.timeLimit(.minutes(1))) struct MessageChannelSendTests {
    @Test func aSendToAPeerThatNeitherReadsNorWritesEndsAtItsDeadline() throws {
        let pair = try ChannelPair.unixSocket()
        defer { pair.close() }
        let left = pair.left
        let frame = DuplexTraffic.batches(count: 1, payloadBytes: 8 << 20, seed: 9)[0]
        let sender = BackgroundThread { () throws -> Void in
            let messages = MessageChannel(left, maxFrameBytes: SyncProtocol.defaultMaxFrameBytes)
            try messages.send(frame, deadline: after(.milliseconds(200)))
        }
        let failure = #expect(throws: SyncFailure.self) { try sender.join("the send gave up", timeout: .seconds(30)) }
        guard case .transport(let error)? = failure else {
            Issue.record("expected a transport failure, got \(String(describing: failure))")
            return
        }
        #expect(error == .timedOut(waitingFor: "\(left) to take the bytes written to it"))
    }

    /// The peer sends 60,000-byte frames and never reads. With a limit of
    /// 64 KiB, the queue holds 2 × (9 + 65,536) + 65,536 = 196,626 bytes:
    /// three frames of 60,009 bytes (180,027) fit, the fourth (240,036) does not.
    @Test func aPeerThatSendsMoreThanTheQueueHoldsWhileThisSideSendsFailsTheSession() throws {
        let pair = try ChannelPair.unixSocket()
        defer { pair.close() }
        let left = pair.left, right = pair.right
        let flood = DuplexTraffic.batches(count: 6, payloadBytes: 60_000, seed: 10).flatMap { FrameEncoder.encode($0.frame) }
        let flooder = BackgroundThread { try? right.write(flood, deadline: after(.seconds(30))) }
        let frame = DuplexTraffic.batches(count: 1, payloadBytes: 8 << 20, seed: 11)[0]
        let sender = BackgroundThread { () throws -> Void in
            let messages = MessageChannel(left, maxFrameBytes: 65_536)
            try messages.send(frame, deadline: after(.seconds(20)))
        }
        let failure = #expect(throws: SyncFailure.self) { try sender.join("the send failed", timeout: .seconds(30)) }
        guard case .session(let error)? = failure else {
            Issue.record("expected a session failure, got \(String(describing: failure))")
            return
        }
        #expect(error == .peerSentTooMuch(bytes: 240_036, limit: 196_626))
        #expect(error.code == .unexpectedMessage)
        left.close()
        _ = try flooder.join("the flooder saw the session end")
    }
}
