import Foundation
import ShareLog
import ShareSync

extension FuzzSeeds {
    /// One message of every type, made by `Message.frame`, the events of a
    /// batch by `EventCodec`.
    static var messages: [Message] {
        let epoch = Epoch(uuid: UUID(uuidString: "7d3e9f1a-2b4c-4d5e-9f0a-1b2c3d4e5f60")!)
        let nonce = HandshakeNonce(bytes: (0..<32).map { UInt8($0) })!
        let proof = HandshakeProof(bytes: (0..<32).map { UInt8(255 - $0) })!
        let events = EncodedEvents(encoded: FuzzSeeds.events)
        return [
            .hello(Message.Hello(versions: 2...2, role: .main, directions: [.pull, .push, .follow], replica: origin, epoch: epoch, nonce: nonce)),
            .welcome(Message.Welcome(version: 2, replica: origin, epoch: epoch, nonce: nonce, proof: proof)),
            .welcome(Message.Welcome(version: 2, replica: origin, epoch: epoch, nonce: nonce, proof: nil)),
            .authenticate(proof: proof),
            .accepted(Message.Accepted(heldOfYou: 7, proof: proof)),
            .accepted(Message.Accepted(heldOfYou: 0, proof: nil)),
            .pull(Message.Pull(knownEpoch: epoch, after: 41, follow: true, maxBatchBytes: 1 << 20, heldOfYou: 3)),
            .pull(Message.Pull(knownEpoch: nil, after: 0, follow: false, maxBatchBytes: 1)),
            .batch(through: 9, events: events),
            .ack(through: 9),
            .caughtUp(position: .max),
            .snapshotRequired(reason: .behindHorizon, epoch: epoch, horizon: 12),
            .snapshotRequest,
            .snapshotBatch(EncodedEvents(encoded: Array(FuzzSeeds.events.prefix(2)))),
            .snapshotEnd(resumeAfter: 12, epoch: epoch),
            .fetch([name, RecordName(uuid: UUID(uuidString: "4b5daf7a-8be9-4c3b-8d6f-a08b4c5e6d7f")!)]),
            .records([Message.Record(name: name, events: EncodedEvents(encoded: Array(FuzzSeeds.events.prefix(3)))),
                      Message.Record(name: RecordName(uuid: UUID(uuidString: "4b5daf7a-8be9-4c3b-8d6f-a08b4c5e6d7f")!), events: EncodedEvents(encoded: []))]),
            .heartbeat,
            .error(code: .unexpectedMessage, message: "the peer sent ack while waitingForPull"),
            .bye,
        ]
    }

    /// `frame` inputs: the limit byte, the cuts, then a stream of whole
    /// frames. Every message at the default limit in one read and in small
    /// reads; a batch under a 4 KiB limit; the handshake cut a byte a read.
    static var frameStreams: [[UInt8]] {
        let stream = messages.flatMap { FrameEncoder.encode($0.frame) }
        let handshake = messages.prefix(4).flatMap { FrameEncoder.encode($0.frame) }
        let batch = FrameEncoder.encode(messages[6].frame)
        return [
            [3, 0] + stream,
            [3, 5, 1, 4, 5, 9, 13] + stream,
            [2, 2, 8, 100] + batch,
            [3, 7, 1, 1, 1, 1, 1, 1, 1] + handshake,
        ]
    }

    /// `exchange` inputs (`SessionScript`): well-formed exchanges, each with
    /// aligned reads, that end well with the events applied.
    static var exchanges: [[UInt8]] {
        let aligned: UInt8 = 32
        let twoShares: UInt8 = 1 << 6
        return [
            // A server with two shares, pulled by a main client: hello (pull), pull, ack, bye.
            [aligned | twoShares, 2, 2, 5, 0, 0, 7, 0, 15, 1],
            // The same with a key: the client proves it holds it; its hello read a byte a read.
            [aligned | twoShares | 4, 0xF2, 2, 4, 0, 5, 0, 0, 7, 0, 15, 1],
            // A server pushed to: it pulls, takes a batch of three events, caughtUp, bye.
            [aligned, 2, 4, 6, 3, 3, 0, 1, 3, 8, 3, 15, 1],
            // A main client pulling: welcome, a batch of two, caughtUp, in reads of 7 bytes.
            [aligned | 1, 3, 0, 0x76, 2, 2, 0, 1, 8, 2],
            // A main client with a key, both ways, two shares of its own: the server's pull
            // waits until the client's own pull caught up, then the server acks.
            [aligned | twoShares | 4 | 1 | 2 << 3, 3, 1, 6, 1, 1, 0, 8, 1, 5, 0, 0, 7, 0],
            // A main client whose cursor needs a snapshot: snapshotRequired, a part, its end, caughtUp.
            [aligned | 1, 3, 0, 9, 0, 11, 2, 0, 1, 12, 2, 8, 2],
            // A clip fetching three names: welcome, then the records of what it asked.
            [aligned | 3, 3, 0, 14, 0],
            // A server with two shares, fetched from by a clip: hello (clip), a fetch of three names, bye.
            [aligned | twoShares, 2, 1, 13, 2, 0, 1, 4, 15, 1],
        ]
    }
}
