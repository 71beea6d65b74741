import TestSupport
@testable import ShareSync

/// Large frames for both ends of a session to send at once, and what a
/// receiver checks them against.
enum DuplexTraffic {
    /// What identifies a run of bytes, short enough to print: its length
    /// and its 64-bit FNV-1a hash, computed here, independently of the code
    /// under test.
    struct Fingerprint: Equatable, Sendable, CustomStringConvertible {
        let length: Int
        let hash: UInt64
        var description: String { "\(length) bytes, fnv \(String(hash, radix: 16))" }

        init(_ bytes: some Collection<UInt8>) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            length = bytes.count
            self.hash = hash
        }
    }

    /// What identifies one frame's content: its position and its event's
    /// fingerprint.
    struct Digest: Equatable, Sendable, CustomStringConvertible {
        let through: UInt64
        let event: Fingerprint
        var description: String { "#\(through) \(event)" }
    }

    /// `count` batch messages of exactly `payloadBytes` payload bytes each
    /// (through u64, one event: count u32, length u32, bytes), filled with
    /// bytes drawn from `seed`.
    static func batches(count: Int, payloadBytes: Int, seed: UInt64) -> [Message] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            .batch(through: UInt64(index + 1), events: EncodedEvents(encoded: [bytes(payloadBytes - 16, using: &random)]))
        }
    }

    /// `count` bytes drawn from `random`.
    static func bytes(_ count: Int, using random: inout SeededGenerator) -> [UInt8] {
        let words = (0..<(count + 7) / 8).map { _ in random.next() }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }

    static func digest(_ message: Message) -> Digest? {
        guard case .batch(let through, let events) = message, events.encoded.count == 1 else { return nil }
        return Digest(through: through, event: Fingerprint(events.encoded[0]))
    }

    /// What one end does: sends every message of `outgoing` through a
    /// `MessageChannel` over `channel` without reading, and only then
    /// receives `expecting` messages. Everything ends by `deadline`.
    /// Returns the digests of what it received (nil for a message that is
    /// not a one-event batch).
    static func sendAllThenReceive(
        over channel: any ByteChannel, _ outgoing: [Message], expecting count: Int, deadline: ContinuousClock.Instant
    ) throws -> [Digest?] {
        let messages = MessageChannel(channel, maxFrameBytes: SyncProtocol.defaultMaxFrameBytes)
        for message in outgoing { try messages.send(message, deadline: deadline) }
        var received: [Digest?] = []
        while received.count < count {
            switch try messages.receive(orWake: nil, deadline: deadline) {
            case .message(let message): received.append(digest(message))
            case .closed: throw DuplexEnded(what: "the peer closed the stream after \(received.count) messages")
            case .timedOut, .woken: throw DuplexEnded(what: "nothing more arrived after \(received.count) messages")
            }
        }
        return received
    }

    struct DuplexEnded: Error, CustomStringConvertible {
        let what: String
        var description: String { what }
    }
}
