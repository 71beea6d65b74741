import SharePrimitives
import Testing
@testable import ShareSync

/// Relay message bodies: the plain and sealed layouts, opening a sealed
/// card with its hour's key or without it, and refusing every damaged body
/// with a typed error.
///
/// The expected sealed body was computed when this test was written by an
/// independent implementation of the layout: Python's hmac and hashlib for
/// the card key, and the `cryptography` package's AESGCM for the cipher:
///
///     key = hmac(step^5(00 01 ... 1f), "sharelog relay card key")
///     aad = 01 01 || int64_be(480005) || a0 a1 ... ab || uint32_be(17) || "redacted creation"
///     body = aad || AESGCM(key).encrypt(nonce, card, aad)
@Suite struct RelayEnvelopeTests {
    static let sealedHour: Int64 = 480_005
    static let cardKey = SecretBytes(hex("eb263b435d2c71bc3b0c2065b36498d7bbd0875901a97d40e01c8d4db02a2eb9"))
    static let redacted = Array("redacted creation".utf8)
    static let card = Array("BEGIN:VCARD\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n".utf8)
    static let nonce: [UInt8] = Array(0xA0...0xAB)
    static let expectedSealed = hex(
        """
        01 01 0000000000075305 a0a1a2a3a4a5a6a7a8a9aaab 00000011 7265646163746564206372656174696f6e
        2a191974cd12453daaebc05bf6ec2b451e2f3d4bcf6d16371bd477a255f369152bcdaea399eec6797b
        08d73e1c4c135b21e74ef8736a66930e
        """)
    /// Holds the key of every hour: a damaged hour then fails authentication.
    static let anyHour: @Sendable (Int64) -> SecretBytes? = { _ in cardKey }
    static let noKey: @Sendable (Int64) -> SecretBytes? = { _ in nil }

    static func sealedBody() -> [UInt8] {
        RelayEnvelope.sealed(redactedEvent: redacted, card: card, hour: sealedHour, cardKey: cardKey, nonce: nonce)
    }

    @Test func aPlainBodyIsVersionFormAndTheEventAsItIs() throws {
        let body = RelayEnvelope.plain(Self.card)
        #expect(body == [1, 0] + Self.card)
        #expect(try RelayEnvelope.open(body, cardKey: Self.noKey) == .plain(Self.card))
        #expect(try RelayEnvelope.open([1, 0], cardKey: Self.anyHour) == .plain([]))
    }

    @Test func aSealedBodyMatchesAnIndependentImplementation() {
        #expect(Self.sealedBody() == Self.expectedSealed)
    }

    @Test func aSealedBodyOpensWithTheKeyOfItsHour() throws {
        var asked: [Int64] = []
        let opened = try RelayEnvelope.open(Self.expectedSealed) { hour in
            asked.append(hour)
            return Self.cardKey
        }
        #expect(opened == .sealed(redactedEvent: Self.redacted, hour: Self.sealedHour, card: Self.card))
        #expect(asked == [Self.sealedHour])
    }

    @Test func withoutTheKeyOfItsHourASealedBodyGivesItsRedactedEventOnly() throws {
        #expect(try RelayEnvelope.open(Self.expectedSealed, cardKey: Self.noKey)
            == .sealed(redactedEvent: Self.redacted, hour: Self.sealedHour, card: nil))
    }

    @Test func twoSealsOfOneCardDifferInNonceAndCiphertextAndBothOpen() throws {
        let first = RelayEnvelope.sealed(redactedEvent: Self.redacted, card: Self.card, hour: Self.sealedHour, cardKey: Self.cardKey)
        let second = RelayEnvelope.sealed(redactedEvent: Self.redacted, card: Self.card, hour: Self.sealedHour, cardKey: Self.cardKey)
        #expect(first.count == Self.expectedSealed.count)
        #expect(first[10..<22] != second[10..<22])
        #expect(first[43...] != second[43...])
        for body in [first, second] {
            #expect(try RelayEnvelope.open(body, cardKey: Self.anyHour)
                == .sealed(redactedEvent: Self.redacted, hour: Self.sealedHour, card: Self.card))
        }
    }

    @Test func anotherStreamKeyFailsAuthentication() {
        let other = StreamKey.generate(hour: Self.sealedHour)
        #expect(throws: RelayEnvelopeError.authenticationFailed(hour: Self.sealedHour)) {
            try RelayEnvelope.open(Self.expectedSealed) { other.cardKey(forHour: $0) }
        }
    }

    /// What opening with `anyHour` gives once byte `index` is XORed with
    /// 0xFF. Hours from `python3 -c 'print(480005 ^ (0xFF << 8 * (9 - i)))'`
    /// (byte 2 as a signed Int64); a flipped length byte asks for
    /// 26 + length + 16 bytes.
    static func expectedAfterFlipping(_ index: Int) -> Result<RelayEnvelope.Opened, RelayEnvelopeError> {
        switch index {
        case 0: .failure(.unknownVersion(0xFE))
        case 1: .failure(.unknownForm(0xFE))
        case 2: .failure(.authenticationFailed(hour: -72_057_594_037_447_931))
        case 3: .failure(.authenticationFailed(hour: 71_776_119_061_697_285))
        case 4: .failure(.authenticationFailed(hour: 280_375_465_562_885))
        case 5: .failure(.authenticationFailed(hour: 1_095_217_140_485))
        case 6: .failure(.authenticationFailed(hour: 4_278_670_085))
        case 7: .failure(.authenticationFailed(hour: 16_274_181))
        case 8: .failure(.authenticationFailed(hour: 502_789))
        case 9: .failure(.authenticationFailed(hour: 480_250))
        case 22: .failure(.truncated(count: 100, needed: 4_278_190_139))
        case 23: .failure(.truncated(count: 100, needed: 16_711_739))
        case 24: .failure(.truncated(count: 100, needed: 65_339))
        case 25: .failure(.truncated(count: 100, needed: 280))
        default: .failure(.authenticationFailed(hour: sealedHour))
        }
    }

    @Test func flippingAnyByteOfASealedBodyIsRefused() {
        #expect(Self.expectedSealed.count == 100)
        for index in Self.expectedSealed.indices {
            var damaged = Self.expectedSealed
            damaged[index] ^= 0xFF
            let outcome = Result { () throws(RelayEnvelopeError) in try RelayEnvelope.open(damaged, cardKey: Self.anyHour) }
            #expect(outcome == Self.expectedAfterFlipping(index), "byte \(index)")
        }
        // One bit of the nonce, the redacted event, the ciphertext or the tag is enough.
        for index in Array(10..<22) + Array(26..<100) {
            var damaged = Self.expectedSealed
            damaged[index] ^= 0x01
            #expect(throws: RelayEnvelopeError.authenticationFailed(hour: Self.sealedHour), "byte \(index)") {
                try RelayEnvelope.open(damaged, cardKey: Self.anyHour)
            }
        }
    }

    /// 2 bytes for any body; 42 (26 of header, 16 of tag) for a sealed
    /// one; 59 once its length says 17 bytes of redacted event; past that
    /// the cut-short ciphertext fails authentication.
    @Test func everyTruncatedBodyIsRefused() throws {
        for count in 0..<100 {
            let body = Array(Self.expectedSealed.prefix(count))
            let expected: RelayEnvelopeError = switch count {
            case ..<2: .truncated(count: count, needed: 2)
            case ..<42: .truncated(count: count, needed: 42)
            case ..<59: .truncated(count: count, needed: 59)
            default: .authenticationFailed(hour: Self.sealedHour)
            }
            #expect(throws: expected, "\(count) bytes") { try RelayEnvelope.open(body, cardKey: Self.anyHour) }
        }
        let empty = RelayEnvelope.sealed(redactedEvent: [], card: [], hour: Self.sealedHour, cardKey: Self.cardKey)
        #expect(empty.count == 42)
        #expect(try RelayEnvelope.open(empty, cardKey: Self.anyHour) == .sealed(redactedEvent: [], hour: Self.sealedHour, card: []))
    }

    @Test func unknownVersionsAndFormsAreRefused() {
        #expect(throws: RelayEnvelopeError.unknownVersion(0)) { try RelayEnvelope.open([0, 0, 1, 2], cardKey: Self.noKey) }
        #expect(throws: RelayEnvelopeError.unknownVersion(2)) { try RelayEnvelope.open([2, 1], cardKey: Self.anyHour) }
        #expect(throws: RelayEnvelopeError.unknownForm(2)) { try RelayEnvelope.open([1, 2] + Self.card, cardKey: Self.anyHour) }
    }
}
