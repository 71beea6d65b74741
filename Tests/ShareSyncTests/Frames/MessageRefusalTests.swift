import ShareLog
import ShareSync
import Testing
import TestSupport
import TestTraits

/// Payloads that are not their message, each refused with the field at fault.
@Suite(.ownThread) struct MessageRefusalTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let type: FrameType
        let payload: [UInt8]
        let error: MessageError
        var testDescription: String { name }
    }

    static let hello = GoldenFrame.hello.payload
    static let name = "00112233445566778899aabbccddeeff"

    static let malformed: [Case] = [
        Case(name: "empty hello", type: .hello, payload: [], error: .truncated(.hello, field: "magic")),
        Case(name: "hello cut in the replica", type: .hello, payload: Array(hello.prefix(11)), error: .truncated(.hello, field: "replica")),
        Case(name: "hello cut before its directions", type: .hello, payload: Array(hello.prefix(9)), error: .truncated(.hello, field: "directions")),
        Case(name: "hello directions bit 3", type: .hello, payload: hex("534c5359 0001 0001 01 08") + hello.dropFirst(10),
             error: .invalidValue(.hello, field: "directions", value: 8)),
        Case(name: "hello cut in the nonce", type: .hello, payload: Array(hello.dropLast()), error: .truncated(.hello, field: "nonce")),
        Case(name: "hello to a web server", type: .hello, payload: Array("GET / HTTP/1.1".utf8), error: .badMagic(hex("47455420"))),
        Case(name: "hello with the wrong magic", type: .hello, payload: hex("534c535a") + hello.dropFirst(4),
             error: .badMagic(hex("534c535a"))),
        Case(name: "hello versions 2…1", type: .hello, payload: hex("534c5359 0002 0001") + hello.dropFirst(8),
             error: .invalidVersionRange(min: 2, max: 1)),
        Case(name: "hello role 0", type: .hello, payload: hex("534c5359 0001 0001 00") + hello.dropFirst(9),
             error: .invalidValue(.hello, field: "role", value: 0)),
        Case(name: "hello role 3", type: .hello, payload: hex("534c5359 0001 0001 03") + hello.dropFirst(9),
             error: .invalidValue(.hello, field: "role", value: 3)),
        // The golden welcome up to its nonce (66 bytes), then a 31-byte proof.
        Case(name: "welcome proofLength 31", type: .welcome,
             payload: Array(GoldenFrame.welcome.payload.prefix(66)) + [31] + Array(repeating: 0, count: 31),
             error: .invalidValue(.welcome, field: "proofLength", value: 31)),
        Case(name: "welcome cut in the proof", type: .welcome, payload: Array(GoldenFrame.welcome.payload.dropLast()),
             error: .truncated(.welcome, field: "proof")),
        Case(name: "authenticate with 31 bytes", type: .authenticate, payload: Array(repeating: 7, count: 31),
             error: .truncated(.authenticate, field: "proof")),
        Case(name: "pull follow 2", type: .pull, payload: hex("00000000000000000000000000000000 0000000000000000 02 00100000 0000000000000000"),
             error: .invalidValue(.pull, field: "follow", value: 2)),
        Case(name: "pull without maxBatchBytes", type: .pull, payload: hex("00000000000000000000000000000000 0000000000000000 01"),
             error: .truncated(.pull, field: "maxBatchBytes")),
        Case(name: "pull without heldOfYou", type: .pull, payload: hex("00000000000000000000000000000000 0000000000000000 01 00100000"),
             error: .truncated(.pull, field: "heldOfYou")),
        Case(name: "batch with one of its two events", type: .batch, payload: hex("0000000000000102 00000002 00000003 aabbcc"),
             error: .truncated(.batch, field: "events[1].length")),
        Case(name: "batch event shorter than its length", type: .batch, payload: hex("0000000000000102 00000001 00000005 aabbcc"),
             error: .truncated(.batch, field: "events[0]")),
        Case(name: "batch counting 4 billion events", type: .batch, payload: hex("0000000000000102 ffffffff 00000000"),
             error: .truncated(.batch, field: "events[1].length")),
        Case(name: "ack of 7 bytes", type: .ack, payload: hex("00000000000001"), error: .truncated(.ack, field: "through")),
        Case(name: "caughtUp of nothing", type: .caughtUp, payload: [], error: .truncated(.caughtUp, field: "position")),
        Case(name: "snapshotRequired reason 0", type: .snapshotRequired, payload: [0] + GoldenFrame.snapshotRequired.payload.dropFirst(),
             error: .invalidValue(.snapshotRequired, field: "reason", value: 0)),
        Case(name: "snapshotRequired reason 4", type: .snapshotRequired, payload: [4] + GoldenFrame.snapshotRequired.payload.dropFirst(),
             error: .invalidValue(.snapshotRequired, field: "reason", value: 4)),
        Case(name: "snapshotBatch without events", type: .snapshotBatch, payload: hex("00000001"),
             error: .truncated(.snapshotBatch, field: "events[0].length")),
        Case(name: "snapshotEnd without epoch", type: .snapshotEnd, payload: hex("0000000000000009"),
             error: .truncated(.snapshotEnd, field: "epoch")),
        Case(name: "fetch of no name", type: .fetch, payload: hex("0000"),
             error: .countOutOfRange(.fetch, field: "count", count: 0, allowed: 1 ... 64)),
        Case(name: "fetch of 65 names", type: .fetch, payload: hex("0041") + Array(repeating: 0xAB, count: 65 * 16),
             error: .countOutOfRange(.fetch, field: "count", count: 65, allowed: 1 ... 64)),
        Case(name: "fetch of 2 names holding 1", type: .fetch, payload: hex("0002" + name),
             error: .truncated(.fetch, field: "names[1]")),
        Case(name: "records of 65", type: .records, payload: hex("0041"),
             error: .countOutOfRange(.records, field: "count", count: 65, allowed: 1 ... 64)),
        Case(name: "records cut before an eventCount", type: .records, payload: hex("0001" + name),
             error: .truncated(.records, field: "records[0].eventCount")),
        Case(name: "records event cut", type: .records, payload: hex("0001" + name + "01 00000002 68"),
             error: .truncated(.records, field: "records[0].events[0]")),
        Case(name: "error without its code", type: .error, payload: hex("00"), error: .truncated(.error, field: "code")),
        Case(name: "error code 0", type: .error, payload: hex("0000 6f6b"), error: .invalidValue(.error, field: "code", value: 0)),
        Case(name: "error code 12, retired", type: .error, payload: hex("000c"), error: .invalidValue(.error, field: "code", value: 12)),
        Case(name: "error code 15", type: .error, payload: hex("000f"), error: .invalidValue(.error, field: "code", value: 15)),
    ]

    @Test(arguments: malformed)
    func aMalformedPayloadIsRefusedNamingTheField(sample: Case) {
        let error = #expect(throws: MessageError.self) { try Message(Frame(type: sample.type, payload: sample.payload)) }
        #expect(error == sample.error)
    }

    /// Every kind but `error`, whose text runs to the end of the payload.
    static let fixedEnd = FrameType.allCases.filter { $0 != .error }

    @Test(arguments: fixedEnd)
    func aByteAfterTheLastFieldIsRefused(type: FrameType) {
        var rng = SeededGenerator(seed: 0x7EA1 + UInt64(type.rawValue))
        for _ in 0..<10 {
            let frame = MessageSamples.random(type, using: &rng).frame
            let error = #expect(throws: MessageError.self) { try Message(Frame(type: type, payload: frame.payload + [0])) }
            #expect(error == .trailingBytes(type, count: 1))
        }
    }

    @Test(arguments: fixedEnd)
    func everyShortenedPayloadIsRefused(type: FrameType) {
        var rng = SeededGenerator(seed: 0x5402 + UInt64(type.rawValue))
        for _ in 0..<5 {
            let payload = MessageSamples.random(type, using: &rng).frame.payload
            for cut in 0..<payload.count {
                let error = #expect(throws: MessageError.self) { try Message(Frame(type: type, payload: Array(payload.prefix(cut)))) }
                guard case .truncated(type, _) = error else {
                    Issue.record("\(type) cut at \(cut) of \(payload.count): \(String(describing: error))")
                    return
                }
            }
        }
    }

    @Test func anEventThatDoesNotDecodeIsNamedByItsIndex() {
        var rng = SeededGenerator(seed: 0xE7E27)
        let events = EncodedEvents(encoded: [EventCodec.encode(MessageSamples.event(&rng)), [1, 2, 3]])
        let error = #expect(throws: MessageError.self) { try events.decoded() }
        #expect(error == .invalidEvent(index: 1, .truncated(3)))
    }

    @Test func errorsNameTheMessageAndTheField() {
        let truncated = MessageError.truncated(.batch, field: "events[1].length").description
        #expect(truncated.contains("batch message ends before its events[1].length"))
        #expect(MessageError.invalidValue(.hello, field: "role", value: 3).description.contains("3 in role"))
        let count = MessageError.countOutOfRange(.fetch, field: "count", count: 65, allowed: 1 ... 64).description
        #expect(count.contains("65 in count, outside 1…64"))
    }
}
