import Foundation
import ShareLog
import ShareSync
import TestSupport

/// Random messages of each kind, from a seed, for the round trips.
enum MessageSamples {
    static func random(_ type: FrameType, using rng: inout SeededGenerator) -> Message {
        switch type {
        case .hello:
            let low = UInt16.random(in: 0...UInt16.max, using: &rng)
            return .hello(Message.Hello(
                versions: low ... UInt16.random(in: low...UInt16.max, using: &rng), role: SyncRole.allCases.randomElement(using: &rng)!,
                directions: SyncDirections(rawValue: .random(in: 0...7, using: &rng)),
                replica: identifier(&rng), epoch: identifier(&rng), nonce: HandshakeNonce(bytes: bytes(32, &rng))!))
        case .welcome:
            return .welcome(Message.Welcome(
                version: .random(in: 0...UInt16.max, using: &rng), replica: identifier(&rng), epoch: identifier(&rng),
                nonce: HandshakeNonce(bytes: bytes(32, &rng))!,
                proof: Bool.random(using: &rng) ? HandshakeProof(bytes: bytes(32, &rng))! : nil))
        case .authenticate:
            return .authenticate(proof: HandshakeProof(bytes: bytes(32, &rng))!)
        case .accepted:
            return .accepted(Message.Accepted(heldOfYou: rng.next(), proof: Bool.random(using: &rng) ? HandshakeProof(bytes: bytes(32, &rng))! : nil))
        case .pull:
            return .pull(Message.Pull(
                knownEpoch: Bool.random(using: &rng) ? identifier(&rng) : nil, after: rng.next(), follow: .random(using: &rng),
                maxBatchBytes: .random(in: 0...UInt32.max, using: &rng), heldOfYou: rng.next()))
        case .batch:
            return .batch(through: rng.next(), events: events(.random(in: 0...6, using: &rng), &rng))
        case .ack:
            return .ack(through: rng.next())
        case .caughtUp:
            return .caughtUp(position: rng.next())
        case .snapshotRequired:
            return .snapshotRequired(
                reason: Message.SnapshotReason.allCases.randomElement(using: &rng)!, epoch: identifier(&rng), horizon: rng.next())
        case .snapshotRequest:
            return .snapshotRequest
        case .snapshotBatch:
            return .snapshotBatch(events(.random(in: 0...6, using: &rng), &rng))
        case .snapshotEnd:
            return .snapshotEnd(resumeAfter: rng.next(), epoch: identifier(&rng))
        case .fetch:
            return .fetch((0 ..< Int.random(in: Message.fetchNames, using: &rng)).map { _ in identifier(&rng) })
        case .records:
            return .records((0 ..< Int.random(in: Message.fetchNames, using: &rng)).map { _ in
                Message.Record(name: identifier(&rng), events: events(.random(in: 0...3, using: &rng), &rng))
            })
        case .heartbeat:
            return .heartbeat
        case .error:
            let texts = ["", "versions 2…3 do not overlap 1…1", "clé refusée ✋", String(repeating: "x", count: 300)]
            return .error(code: SyncErrorCode.allCases.randomElement(using: &rng)!, message: texts.randomElement(using: &rng)!)
        case .bye:
            return .bye
        }
    }

    /// `count` random events, encoded.
    static func events(_ count: Int, _ rng: inout SeededGenerator) -> EncodedEvents {
        EncodedEvents((0..<count).map { _ in event(&rng) })
    }

    static func event(_ rng: inout SeededGenerator) -> Event {
        let id = EventID(origin: identifier(&rng), counter: rng.next())
        let at = Timestamp(milliseconds: .random(in: 0...4_000_000_000_000, using: &rng))
        return switch rng.next() % 3 {
        case 0:
            Event(id: id, kind: .shareCreated(ShareCreated(
                recordName: identifier(&rng), vCard: Bool.random(using: &rng) ? bytes(.random(in: 0...300, using: &rng), &rng) : nil,
                createdAt: at, expiresAt: at.advanced(by: .seconds(.random(in: 60...604_800, using: &rng))))))
        case 1:
            Event(id: id, kind: .shareExpired(ShareExpired(
                recordName: identifier(&rng), at: at, reason: Bool.random(using: &rng) ? .ttl : .revoked)))
        default:
            Event(id: id, kind: .unknown(
                code: .random(in: 3...255, using: &rng), flags: .random(in: 0...255, using: &rng),
                payload: bytes(.random(in: 0...40, using: &rng), &rng)))
        }
    }

    static func identifier<I: Identifier>(_ rng: inout SeededGenerator) -> I {
        let raw = bytes(16, &rng)
        return I(uuid: UUID(uuid: (
            raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
            raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15])))
    }

    static func bytes(_ count: Int, _ rng: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }
}
