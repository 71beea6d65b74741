import Testing
@testable import ShareSync

/// Relay message bodies: the plain and sealed layouts, opening them with a
/// stream key that holds, has erased or never had the hour's key, and
/// refusing every damaged body with a typed error.
///
/// The expected sealed body was computed when this test was written by an
/// independent implementation of the layout: Python's hmac and hashlib for
/// the ratchet, and the `cryptography` package's AESGCM for the cipher:
///
///     card = hmac(step^5(00 01 ... 1f), "sharelog relay card key")
///     header = 01 01 || int64_be(480005) || a0 a1 ... ab
///     body = header || AESGCM(card).encrypt(nonce, event, header)
@Suite struct RelayEnvelopeTests {
    static let hour: Int64 = 480_000
    static let sealedHour: Int64 = 480_005
    static let base = StreamKey(hour: hour, chainKey: Array(0..<32))
    static let event = Array("BEGIN:VCARD\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n".utf8)
    static let nonce: [UInt8] = Array(0xA0...0xAB)
    static let expectedSealed = hex(
        """
        01 01 0000000000075305 a0a1a2a3a4a5a6a7a8a9aaab
        2a191974cd12453daaebc05bf6ec2b451e2f3d4bcf6d16371bd477a255f369152bcdaea399eec6797b9f5d487e523ab4d991dd
        97c6b27f5f8c
        """)

    static func sealedBody() throws -> [UInt8] {
        try RelayEnvelope.sealed(event, hour: sealedHour, key: base, nonce: nonce)
    }

    @Test func aPlainBodyIsVersionFormAndTheEventAsItIs() throws {
        let body = RelayEnvelope.plain(Self.event)
        #expect(body == [1, 0] + Self.event)
        #expect(try RelayEnvelope.open(body, key: nil) == .event(Self.event))
        #expect(try RelayEnvelope.open(body, key: Self.base) == .event(Self.event))
        #expect(try RelayEnvelope.open([1, 0], key: nil) == .event([]))
    }

    @Test func aSealedBodyMatchesAnIndependentImplementation() throws {
        #expect(try Self.sealedBody() == Self.expectedSealed)
    }

    @Test func aSealedBodyOpensUnderEveryKeyThatStillHoldsItsHour() throws {
        let body = try Self.sealedBody()
        #expect(try RelayEnvelope.open(body, key: Self.base) == .event(Self.event))
        #expect(try RelayEnvelope.open(body, key: Self.base.advanced(to: Self.sealedHour)) == .event(Self.event))
        let random = try RelayEnvelope.sealed(Self.event, hour: Self.sealedHour, key: Self.base.advanced(to: Self.hour + 1))
        #expect(random.count == Self.expectedSealed.count)
        #expect(Array(random[10..<22]) != Self.nonce)
        #expect(try RelayEnvelope.open(random, key: Self.base) == .event(Self.event))
    }

    @Test func twoSealsOfOneEventDifferInNonceAndCiphertext() throws {
        let first = try RelayEnvelope.sealed(Self.event, hour: Self.hour, key: Self.base)
        let second = try RelayEnvelope.sealed(Self.event, hour: Self.hour, key: Self.base)
        #expect(first[10..<22] != second[10..<22])
        #expect(first[22...] != second[22...])
    }

    @Test func afterTheKeyAdvancedPastItsHourASealedBodyIsErased() throws {
        let body = try Self.sealedBody()
        #expect(try RelayEnvelope.open(body, key: Self.base.advanced(to: Self.sealedHour + 1)) == .erased(hour: Self.sealedHour))
        #expect(try RelayEnvelope.open(body, key: Self.base.advanced(to: Self.sealedHour + 700)) == .erased(hour: Self.sealedHour))
        #expect(try RelayEnvelope.open(body, key: nil) == .erased(hour: Self.sealedHour))
    }

    @Test func anotherStreamKeyFailsAuthentication() throws {
        let body = try Self.sealedBody()
        let other = StreamKey.generate(hour: Self.hour)
        #expect(throws: RelayEnvelopeError.authenticationFailed(hour: Self.sealedHour)) { try RelayEnvelope.open(body, key: other) }
    }

    /// What opening under `base` gives once byte `index` is XORed with 0xFF.
    /// Hours from `python3 -c 'print(480005 ^ (0xFF << 8 * (9 - i)))'`
    /// (byte 2 as a signed Int64).
    static func expectedAfterFlipping(_ index: Int) -> Result<RelayEnvelope.Opened, RelayEnvelopeError> {
        switch index {
        case 0: .failure(.unknownVersion(0xFE))
        case 1: .failure(.unknownForm(0xFE))
        case 2: .success(.erased(hour: -72_057_594_037_447_931))
        case 3: .failure(.hourBeyondWindow(hour: 71_776_119_061_697_285, keyHour: hour))
        case 4: .failure(.hourBeyondWindow(hour: 280_375_465_562_885, keyHour: hour))
        case 5: .failure(.hourBeyondWindow(hour: 1_095_217_140_485, keyHour: hour))
        case 6: .failure(.hourBeyondWindow(hour: 4_278_670_085, keyHour: hour))
        case 7: .failure(.hourBeyondWindow(hour: 16_274_181, keyHour: hour))
        case 8: .failure(.hourBeyondWindow(hour: 502_789, keyHour: hour))
        case 9: .failure(.authenticationFailed(hour: 480_250))
        default: .failure(.authenticationFailed(hour: sealedHour))
        }
    }

    @Test func flippingAnyByteOfASealedBodyIsRefused() throws {
        let body = try Self.sealedBody()
        for index in body.indices {
            var damaged = body
            damaged[index] ^= 0xFF
            let outcome = Result { () throws(RelayEnvelopeError) in try RelayEnvelope.open(damaged, key: Self.base) }
            #expect(outcome == Self.expectedAfterFlipping(index), "byte \(index)")
        }
        // One bit of the nonce, the ciphertext or the tag is enough.
        for index in 10..<body.count {
            var damaged = body
            damaged[index] ^= 0x01
            #expect(throws: RelayEnvelopeError.authenticationFailed(hour: Self.sealedHour), "byte \(index)") {
                try RelayEnvelope.open(damaged, key: Self.base)
            }
        }
    }

    @Test func everyTruncatedBodyIsRefusedAsTruncated() throws {
        let body = try RelayEnvelope.sealed([], hour: Self.sealedHour, key: Self.base)
        #expect(body.count == 38)
        #expect(try RelayEnvelope.open(body, key: Self.base) == .event([]))
        for count in 0..<38 {
            let needed = count < 2 ? 2 : 38
            for key in [Self.base, nil] {
                #expect(throws: RelayEnvelopeError.truncated(count: count, needed: needed), "\(count) bytes") {
                    try RelayEnvelope.open(Array(body.prefix(count)), key: key)
                }
            }
        }
        let sealed = try Self.sealedBody()
        #expect(throws: RelayEnvelopeError.truncated(count: 37, needed: 38)) {
            try RelayEnvelope.open(Array(sealed.prefix(37)), key: Self.base)
        }
        #expect(throws: RelayEnvelopeError.authenticationFailed(hour: Self.sealedHour)) {
            try RelayEnvelope.open(Array(sealed.dropLast()), key: Self.base)
        }
    }

    @Test func unknownVersionsAndFormsAreRefused() {
        #expect(throws: RelayEnvelopeError.unknownVersion(0)) { try RelayEnvelope.open([0, 0, 1, 2], key: nil) }
        #expect(throws: RelayEnvelopeError.unknownVersion(2)) { try RelayEnvelope.open([2, 1], key: Self.base) }
        #expect(throws: RelayEnvelopeError.unknownForm(2)) { try RelayEnvelope.open([1, 2] + Self.event, key: Self.base) }
    }

    @Test func anHourBeyondTheWindowIsRefusedWhenOpeningAndSealing() throws {
        let later = Self.base.advanced(to: Self.hour + 1)
        let body = try RelayEnvelope.sealed(Self.event, hour: Self.hour + 769, key: later)
        #expect(try RelayEnvelope.open(body, key: later) == .event(Self.event))
        #expect(throws: RelayEnvelopeError.hourBeyondWindow(hour: Self.hour + 769, keyHour: Self.hour)) {
            try RelayEnvelope.open(body, key: Self.base)
        }
        #expect(throws: RelayEnvelopeError.hourBeyondWindow(hour: Self.hour + 769, keyHour: Self.hour)) {
            try RelayEnvelope.sealed(Self.event, hour: Self.hour + 769, key: Self.base)
        }
        #expect(throws: RelayEnvelopeError.hourErased(hour: Self.hour - 1, keyHour: Self.hour)) {
            try RelayEnvelope.sealed(Self.event, hour: Self.hour - 1, key: Self.base)
        }
    }
}
