import Testing
@testable import ShareSync

/// Before the handshake ends a server takes only the handshake's small
/// messages, and a clip's session only small fetches: the type and the
/// length are refused on the 5 header bytes, before any payload is read
/// (docs/SYNC.md "Limits").
@Suite struct FrameLimitsTests {
    static func header(length: Int, type: UInt8) -> [UInt8] {
        [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type]
    }

    static func refusal(_ bytes: [UInt8], _ limits: FrameLimits) -> FrameError? {
        do {
            _ = try FrameDecoder(limits: limits).decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func aHelloWaitsForAHelloOfItsExactSizeAnErrorOrBye() {
        let limits = FrameLimits.handshake(expecting: .hello)
        // A batch claiming a million events, refused on its type byte.
        #expect(Self.refusal(Self.header(length: 4 + 1_000_000 * 4 + 8, type: 5), limits) == .oversized(length: 4_000_012, limit: 514))
        #expect(Self.refusal(Self.header(length: 12, type: 5), limits) == .notAllowed(.batch, phase: "in the handshake, waiting for hello"))
        // A hello is 74 bytes (docs/SYNC.md "Messages"), an error at most 514.
        #expect(Self.refusal(Self.header(length: 75, type: 1), limits) == .oversized(length: 75, limit: 74))
        #expect(Self.refusal(Self.header(length: 74, type: 1), limits) == nil)
        #expect(Self.refusal(Self.header(length: 514, type: 15), limits) == nil)
        #expect(Self.refusal(Self.header(length: 515, type: 15), limits) == .oversized(length: 515, limit: 514))
        #expect(Self.refusal(Self.header(length: 32, type: 3), limits) == .notAllowed(.authenticate, phase: "in the handshake, waiting for hello"))
    }

    @Test func aProofIs32BytesAndNothingElseButAnErrorOrByeMayCome() {
        let limits = FrameLimits.handshake(expecting: .authenticate)
        #expect(Self.refusal(Self.header(length: 32, type: 3), limits) == nil)
        #expect(Self.refusal(Self.header(length: 33, type: 3), limits) == .oversized(length: 33, limit: 32))
        #expect(Self.refusal(Self.header(length: 37, type: 4), limits) == .notAllowed(.pull, phase: "in the handshake, waiting for authenticate"))
    }

    @Test func aClipSessionTakesFetchesOf64NamesAtMost() {
        // count u16 and 64 names of 16 bytes.
        #expect(Self.refusal(Self.header(length: 2 + 64 * 16, type: 12), .clip) == nil)
        #expect(Self.refusal(Self.header(length: 2 + 65 * 16, type: 12), .clip) == .oversized(length: 1_042, limit: 1_026))
        #expect(Self.refusal(Self.header(length: 12, type: 5), .clip) == .notAllowed(.batch, phase: "in a clip session"))
        #expect(Self.refusal(Self.header(length: 0, type: 14), .clip) == nil)
    }
}
