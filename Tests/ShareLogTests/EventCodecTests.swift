import Foundation
import SampleCards
import Testing
@testable import ShareLog
import SharePrimitives

@Suite struct EventCodecTests {
    static let origin = ReplicaID.random()
    static let name = RecordName.random()
    static let at = Timestamp(milliseconds: 1_800_000_000_123)

    static let samples: [Event] = [
        Event(id: EventID(origin: origin, counter: 1), kind: .shareCreated(ShareCreated(
            recordName: name, vCard: smallCard(), createdAt: at, expiresAt: at.advanced(by: .seconds(604_800))))),
        Event(id: EventID(origin: origin, counter: 2), kind: .shareCreated(ShareCreated(
            recordName: name, vCard: nil, createdAt: at, expiresAt: at.advanced(by: .seconds(60))))),
        Event(id: EventID(origin: origin, counter: 3), kind: .shareCreated(ShareCreated(
            recordName: name, vCard: SampleCard.make(index: 1, photoBytes: 45_000), createdAt: at, expiresAt: at))),
        Event(id: EventID(origin: origin, counter: 4), kind: .shareExpired(ShareExpired(recordName: name, at: at, reason: .ttl))),
        Event(id: EventID(origin: origin, counter: .max), kind: .shareExpired(ShareExpired(recordName: name, at: at, reason: .revoked))),
        Event(id: EventID(origin: origin, counter: 6), kind: .unknown(code: 77, flags: 0x81, payload: [1, 2, 3])),
        Event(id: EventID(origin: origin, counter: 7), kind: .unknown(code: 200, flags: 0, payload: [])),
    ]

    @Test(arguments: samples)
    func eventsSurviveARoundTrip(event: Event) throws {
        #expect(try EventCodec.decode(EventCodec.encode(event)) == event)
    }

    @Test func unknownKindsAreKeptByteForByte() throws {
        let event = Self.samples[5]
        let encoded = EventCodec.encode(event)
        #expect(EventCodec.encode(try EventCodec.decode(encoded)) == encoded)
    }

    @Test func everySingleBitFlipIsDetected() {
        let encoded = EventCodec.encode(Self.samples[3])
        for index in encoded.indices {
            for bit in 0..<8 {
                var damaged = encoded
                damaged[index] ^= 1 << bit
                #expect(throws: EventDecodingError.self) { try EventCodec.decode(damaged) }
            }
        }
    }

    @Test func truncationAndExtensionAreDetected() {
        let encoded = EventCodec.encode(Self.samples[0])
        for length in [0, 10, 34, encoded.count - 1] {
            #expect(throws: EventDecodingError.self) { try EventCodec.decode(Array(encoded.prefix(length))) }
        }
        #expect(throws: EventDecodingError.self) { try EventCodec.decode(encoded + [0]) }
    }

    @Test func aNewerFormatIsRefusedWithAnUpgradeHint() {
        var encoded = EventCodec.encode(Self.samples[3])
        encoded[0] = 2
        let error = #expect(throws: EventDecodingError.self) { try EventCodec.decode(encoded) }
        #expect(error == .unsupportedVersion(2))
        #expect(error?.description.contains("upgrade") == true)
    }
}

@Suite struct EventFlagTests {
    /// `event` encoded with byte 2 (flags) set to `flags` and the checksum redone.
    static func withFlags(_ flags: UInt8, _ event: Event) -> [UInt8] {
        var bytes = EventCodec.encode(event)
        bytes[2] = flags
        let checksum = bytes.withUnsafeBytes { CRC32.of(UnsafeRawBufferPointer(rebasing: $0[0..<bytes.count - 4])) }
        withUnsafeBytes(of: checksum.bigEndian) { bytes.replaceSubrange(bytes.count - 4..<bytes.count, with: $0) }
        return bytes
    }

    @Test func flagsUndefinedForAKnownKindAreRefused() {
        for (flags, event) in [(UInt8(0x02), EventCodecTests.samples[0]), (0x01, EventCodecTests.samples[3])] {
            #expect(throws: EventDecodingError.self) { try EventCodec.decode(Self.withFlags(flags, event)) }
        }
    }

    @Test func anUnknownKindKeepsItsFlagsForRelay() throws {
        let encoded = Self.withFlags(0x40, EventCodecTests.samples[6])
        let decoded = try EventCodec.decode(encoded)
        guard case .unknown(_, let flags, _) = decoded.kind else { Issue.record("not unknown"); return }
        #expect(flags == 0x40)
        #expect(EventCodec.encode(decoded) == encoded)
    }
}
