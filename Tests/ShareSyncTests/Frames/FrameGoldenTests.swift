import ShareLog
import Testing
@testable import ShareSync

/// Frames as bytes written by hand: what another implementation must
/// produce and accept (docs/SYNC.md).
@Suite struct FrameGoldenTests {
    @Test func theChecksumIsCRC32OverTheTypeByteAndThePayload() {
        // CRC-32's published check value: "123456789" → 0xCBF43926. Split
        // as a type byte ("1") and a payload ("23456789").
        let input = Array("123456789".utf8)
        #expect(ReferenceCRC32.of(input) == 0xCBF4_3926)
        let crc = Array(input.dropFirst()).withUnsafeBytes { FrameChecksum.crc32(type: input[0], payload: $0) }
        #expect(crc == 0xCBF4_3926)
    }

    @Test(arguments: GoldenFrame.all)
    func messagesEncodeToTheirGoldenBytes(golden: GoldenFrame) {
        #expect(FrameEncoder.encode(golden.message.frame) == golden.bytes)
    }

    @Test(arguments: GoldenFrame.all)
    func goldenBytesDecodeToTheirMessages(golden: GoldenFrame) throws {
        let decoded = try FrameDecoder().decode(golden.bytes)
        let type = try #require(FrameType(rawValue: golden.bytes[4]))
        #expect(decoded == .frame(Frame(type: type, payload: golden.payload), consumed: golden.bytes.count))
        guard case .frame(let frame, _) = decoded else { return }
        #expect(try Message(frame) == golden.message)
    }
}
