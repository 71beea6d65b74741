import SharePrimitives
import Testing
@testable import ShareSync

/// The stream key's ratchet and card keys, and its file form.
///
/// The expected ratchet and card-key values were computed when this test
/// was written, with Python's standard library alone (hmac, hashlib), from
/// the chain key 00 01 02 ... 1f at hour 480000:
///
///     step = lambda k: hmac.new(k, b"sharelog relay ratchet step", hashlib.sha256).digest()
///     card = lambda k: hmac.new(k, b"sharelog relay card key", hashlib.sha256).digest()
@Suite struct StreamKeyTests {
    static let hour: Int64 = 480_000
    static let chainHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    static let base = StreamKey(hour: hour, chainKey: SecretBytes(Array(0..<32)))

    @Test func eachRatchetStepIsTheHMACOfTheStepLabel() {
        #expect(Self.base.advanced(to: Self.hour) == Self.base)
        #expect(Self.base.advanced(to: Self.hour + 1).chainKey.bytes == hex("cc77632d74e8cd1885fa88b5ff2a72ab4b3aa8d8083875db73d89f55bf9992ab"))
        let three = Self.base.advanced(to: Self.hour + 3)
        #expect(three.hour == Self.hour + 3)
        #expect(three.chainKey.bytes == hex("c001df1745a8cd181dff3db42f36354cd9f9f03449892c563cedde0a64ab0d25"))
        #expect(Self.base.advanced(to: Self.hour + 1).advanced(to: Self.hour + 3) == three)
    }

    @Test func cardKeysAreDerivedFromTheChainKeyOfTheirHour() {
        #expect(Self.base.cardKey(forHour: Self.hour)?.bytes == hex("b6e2ebccfcec4746a6c78b8254fac49da3d73c52930c788568dcb2fd5134ed0b"))
        let two = hex("55b7f71c61ea3e36ebf9983a49d3050ee84dea76708bf4e4c08f8a0dfc52a993")
        #expect(Self.base.cardKey(forHour: Self.hour + 2)?.bytes == two)
        // A replica that advanced computes the same key for a later hour.
        #expect(Self.base.advanced(to: Self.hour + 1).cardKey(forHour: Self.hour + 2)?.bytes == two)
        #expect(Self.base.advanced(to: Self.hour + 2).cardKey(forHour: Self.hour + 2)?.bytes == two)
        #expect(
            Self.base.cardKey(forHour: Self.hour + 768)?.bytes == hex("86934bda374dc190bf3671f0c2d7cd55fc13d0c1724f48e1c7fec7d37ab4b839"))
    }

    @Test func anAdvancedKeyHasNoCardKeyForPastHoursNorBeyondThirtyTwoDays() {
        let advanced = Self.base.advanced(to: Self.hour + 2)
        #expect(advanced.cardKey(forHour: Self.hour + 1) == nil)
        #expect(advanced.cardKey(forHour: Self.hour) == nil)
        #expect(Self.base.cardKey(forHour: Self.hour - 1) == nil)
        #expect(Self.base.cardKey(forHour: Self.hour + 769) == nil)
        #expect(Self.base.cardKey(forHour: Int64.max) == nil)
    }

    @Test func hoursAreWholeHoursSinceTheEpochRoundedDown() {
        #expect(StreamKey.hour(atMilliseconds: 0) == 0)
        #expect(StreamKey.hour(atMilliseconds: 3_599_999) == 0)
        #expect(StreamKey.hour(atMilliseconds: 3_600_000) == 1)
        #expect(StreamKey.hour(atMilliseconds: -1) == -1)
        #expect(StreamKey.hour(atMilliseconds: -3_600_000) == -1)
        #expect(StreamKey.hour(atMilliseconds: -3_600_001) == -2)
        // 2024-01-01T00:00:00Z and one millisecond before it.
        #expect(StreamKey.hour(atMilliseconds: 1_704_067_200_000) == 473_352)
        #expect(StreamKey.hour(atMilliseconds: 1_704_067_199_999) == 473_351)
    }

    @Test func generatedKeysAreRandomAndStartAtTheirHour() {
        let first = StreamKey.generate(hour: 12)
        let second = StreamKey.generate(hour: 12)
        #expect(first.hour == 12)
        #expect(first.chainKey.count == 32)
        #expect(first.chainKey.bytes != second.chainKey.bytes)
        // Equality compares the chain keys too, not the hours alone.
        #expect(first != second)
        #expect(StreamKey(hour: 12, chainKey: first.chainKey) == first)
    }

    @Test func theFileFormIsOneLineThatReadsBackAsTheSameKey() throws {
        let text = "sharelog-stream-key v1 480000 \(Self.chainHex)\n"
        #expect(Self.base.encoded().bytes == Array(text.utf8))
        #expect(try StreamKey(encoded: Array(text.utf8)) == Self.base)
        let generated = StreamKey.generate(hour: 0).advanced(to: 3)
        #expect(try StreamKey(encoded: generated.encoded().bytes) == generated)
        let zero = StreamKey(hour: 0, chainKey: SecretBytes(Array(0..<32)))
        #expect(String(decoding: zero.encoded().bytes, as: UTF8.self) == "sharelog-stream-key v1 0 \(Self.chainHex)\n")
    }

    static let malformed: [(String, StreamKeyError)] = [
        ("", .missingNewline),
        ("sharelog-stream-key v1 480000 \(chainHex)", .missingNewline),
        ("sharelog-stream-key v1 480000 \(chainHex)\r\n", .malformedChainKey(characters: 65)),
        ("\n", .notAStreamKey),
        ("sharelog-sync-key v1 480000 \(chainHex)\n", .notAStreamKey),
        (" sharelog-stream-key v1 480000 \(chainHex)\n", .notAStreamKey),
        ("sharelog-stream-key\n", .wrongFieldCount(1)),
        ("sharelog-stream-key v1 480000\n", .wrongFieldCount(3)),
        ("sharelog-stream-key v1 480000 \(chainHex) extra\n", .wrongFieldCount(5)),
        ("sharelog-stream-key v1  480000 \(chainHex)\n", .wrongFieldCount(5)),
        ("sharelog-stream-key v2 480000 \(chainHex)\n", .unsupportedVersion("v2")),
        ("sharelog-stream-key V1 480000 \(chainHex)\n", .unsupportedVersion("V1")),
        ("sharelog-stream-key v1 -5 \(chainHex)\n", .malformedHour("-5")),
        ("sharelog-stream-key v1 +5 \(chainHex)\n", .malformedHour("+5")),
        ("sharelog-stream-key v1 0480000 \(chainHex)\n", .malformedHour("0480000")),
        ("sharelog-stream-key v1 48e4 \(chainHex)\n", .malformedHour("48e4")),
        ("sharelog-stream-key v1 9223372036854775808 \(chainHex)\n", .malformedHour("9223372036854775808")),
        ("sharelog-stream-key v1 480000 \(chainHex.uppercased())\n", .malformedChainKey(characters: 64)),
        ("sharelog-stream-key v1 480000 \(chainHex.dropLast())\n", .malformedChainKey(characters: 63)),
        ("sharelog-stream-key v1 480000 \(chainHex)00\n", .malformedChainKey(characters: 66)),
        ("sharelog-stream-key v1 480000 \(chainHex.dropLast())g\n", .malformedChainKey(characters: 64)),
        ("sharelog-stream-key v1 480000 \n", .malformedChainKey(characters: 0)),
    ]

    @Test(arguments: malformed) func aMalformedLineIsRefusedWithWhatIsWrong(_ text: String, _ expected: StreamKeyError) {
        #expect(throws: expected) { try StreamKey(encoded: Array(text.utf8)) }
        #expect(expected.description.contains("a stream key file holds one line"))
    }

    @Test func theChainKeyNeverShowsInDescriptions() {
        #expect(Self.base.description == "StreamKey(hour 480000, chain key not shown)")
        var dumped = ""
        dump(Self.base, to: &dumped)
        #expect(!dumped.contains("chainKey"))
        #expect(dumped.contains("480000"))
    }
}
