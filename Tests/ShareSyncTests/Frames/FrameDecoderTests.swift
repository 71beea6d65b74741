import ShareLog
import Testing
import TestSupport
@testable import ShareSync

@Suite struct FrameDecoderTests {
    @Test(arguments: GoldenFrame.all)
    func everyPrefixOfAFrameNeedsMoreAndConsumesNothing(golden: GoldenFrame) throws {
        let size = golden.bytes.count
        for cut in 0..<size {
            // 9 bytes until the length is known, then the whole frame.
            #expect(try FrameDecoder().decode(golden.bytes.prefix(cut)) == .needMore(total: cut < 4 ? 9 : size), "cut at \(cut)")
        }
        let whole = Frame(type: golden.message.type, payload: golden.payload)
        #expect(try FrameDecoder().decode(golden.bytes) == .frame(whole, consumed: size))
    }

    @Test func randomFramesSplitAnywhereNeedMoreUntilWhole() throws {
        var rng = SeededGenerator(seed: 0xF2A3E)
        for index in 0..<64 {
            let type = FrameType.allCases[index % FrameType.allCases.count]
            let frame = Frame(type: type, payload: MessageSamples.bytes(.random(in: 0...200, using: &rng), &rng))
            let bytes = FrameEncoder.encode(frame)
            let size = 9 + frame.payload.count
            for cut in 0..<size {
                #expect(try FrameDecoder().decode(bytes.prefix(cut)) == .needMore(total: cut < 4 ? 9 : size))
            }
            #expect(try FrameDecoder().decode(bytes) == .frame(frame, consumed: size))
        }
    }

    @Test func bytesAfterAFrameAreLeftForTheNext() throws {
        let bytes = GoldenFrame.heartbeat.bytes + GoldenFrame.hello.bytes.prefix(3)
        #expect(try FrameDecoder().decode(bytes) == .frame(Frame(type: .heartbeat, payload: []), consumed: 9))
    }

    @Test func anOversizedLengthIsRefusedFromItsFourBytes() throws {
        // 0x00400001 = 4 MiB + 1, one over the default limit.
        let over = #expect(throws: FrameError.self) { try FrameDecoder().decode(hex("00400001")) }
        #expect(over == .oversized(length: 4_194_305, limit: 4_194_304))
        #expect(try FrameDecoder().decode(hex("00400000")) == .needMore(total: 4_194_313))
        let largest = #expect(throws: FrameError.self) { try FrameDecoder().decode(hex("ffffffff")) }
        #expect(largest == .oversized(length: 4_294_967_295, limit: 4_194_304))
        // The hello's 74-byte payload against a limit of 73, then of 74.
        let tight = #expect(throws: FrameError.self) {
            try FrameDecoder(maxPayloadBytes: 73).decode(GoldenFrame.hello.bytes.prefix(4))
        }
        #expect(tight == .oversized(length: 74, limit: 73))
        #expect(try FrameDecoder(maxPayloadBytes: 74).decode(GoldenFrame.hello.bytes.prefix(4)) == .needMore(total: 83))
    }

    @Test(arguments: [0, 18, 128, 255] as [UInt8])
    func anUnknownTypeIsRefusedFromItsFifthByte(type: UInt8) {
        let error = #expect(throws: FrameError.self) { try FrameDecoder().decode([0, 0, 0, 0, type]) }
        #expect(error == .unknownType(type))
    }

    @Test func everyFlippedPayloadBitIsAChecksumMismatch() {
        let golden = GoldenFrame.hello
        for index in 9..<golden.bytes.count {
            for bit in 0..<8 {
                var damaged = golden.bytes
                damaged[index] ^= 1 << bit
                let error = #expect(throws: FrameError.self) { try FrameDecoder().decode(damaged) }
                let found = ReferenceCRC32.of([0x01] + damaged[9...])
                #expect(error == .checksumMismatch(type: .hello, length: 74, expected: 0x1BAE_E434, found: found))
            }
        }
    }

    @Test func aFlippedChecksumBitIsAMismatch() {
        var damaged = GoldenFrame.error.bytes
        damaged[8] ^= 0x01
        let error = #expect(throws: FrameError.self) { try FrameDecoder().decode(damaged) }
        #expect(error == .checksumMismatch(type: .error, length: 14, expected: 0xC634_8E0E, found: 0xC634_8E0F))
    }

    @Test func errorsSayWhatHappenedWithTheirNumbers() {
        let oversized = FrameError.oversized(length: 4_194_305, limit: 4_194_304).description
        #expect(oversized.contains("4194305") && oversized.contains("4194304"))
        #expect(FrameError.unknownType(17).description.contains("type 17"))
        let checksum = FrameError.checksumMismatch(type: .batch, length: 24, expected: 0xC48F_44D4, found: 0x0000_00FF).description
        #expect(checksum.contains("batch") && checksum.contains("0xc48f44d4") && checksum.contains("0x000000ff"))
    }
}
