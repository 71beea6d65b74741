import ShareLog
import ShareSync
import Testing
import TestSupport

@Suite struct MessageRoundTripTests {
    @Test(arguments: FrameType.allCases)
    func everyKindSurvivesTheWire(type: FrameType) throws {
        var rng = SeededGenerator(seed: 0x5EED_0000 + UInt64(type.rawValue))
        for _ in 0..<40 {
            let message = MessageSamples.random(type, using: &rng)
            let bytes = FrameEncoder.encode(message.frame)
            // The header as an independent reader sees it.
            #expect(bytes[0..<4].reduce(0) { $0 << 8 | Int($1) } == bytes.count - 9)
            #expect(bytes[4] == type.rawValue)
            #expect(bytes[5..<9].reduce(0) { $0 << 8 | UInt32($1) } == ReferenceCRC32.of(bytes[4...4] + bytes[9...]))
            let decoded = try FrameDecoder().decode(bytes)
            guard case .frame(let frame, let consumed) = decoded else {
                Issue.record("a whole \(type) frame decoded to \(decoded)")
                return
            }
            #expect(consumed == bytes.count)
            #expect(try Message(frame) == message)
        }
    }

    @Test func batchedEventsDecodeToTheEventsSent() throws {
        var rng = SeededGenerator(seed: 0xBA7C4)
        let events = (0..<20).map { _ in MessageSamples.event(&rng) }
        let message = try Message(Message.batch(through: 9, events: EncodedEvents(events)).frame)
        guard case .batch(through: 9, let received) = message else {
            Issue.record("a batch came back as \(message)")
            return
        }
        #expect(try received.decoded() == events)
    }

    @Test func recordEventsDecodeToTheEventsSent() throws {
        var rng = SeededGenerator(seed: 0x2EC02D)
        let events = (0..<2).map { _ in MessageSamples.event(&rng) }
        let name = RecordName.random()
        let message = try Message(Message.records([Message.Record(name: name, events: EncodedEvents(events))]).frame)
        guard case .records(let records) = message, records.count == 1 else {
            Issue.record("records came back as \(message)")
            return
        }
        #expect(records[0].name == name)
        #expect(try records[0].events.decoded() == events)
    }

    @Test func anErrorTextThatIsNotUTF8IsReadLossily() throws {
        // code 4, then 0xff (never valid UTF-8) and "ok".
        let message = try Message(Frame(type: .error, payload: hex("0004 ff 6f6b")))
        #expect(message == .error(code: .malformedFrame, message: "\u{FFFD}ok"))
    }
}
