import SharePrimitives
import Testing

/// The CRC-32 against its published check value, and fed in pieces.
@Suite struct CRC32Tests {
    /// The check value of CRC-32/ISO-HDLC (the catalogue of parametrised CRC
    /// algorithms lists it for the ASCII bytes "123456789").
    @Test func theCheckValueOfTheStandardInput() {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBytes { CRC32.of($0) } == 0xCBF4_3926)
    }

    @Test func nothingFedIsZero() {
        #expect(CRC32().value == 0)
        #expect([UInt8]().withUnsafeBytes { CRC32.of($0) } == 0)
    }

    @Test func feedingInPiecesGivesTheChecksumOfTheWhole() {
        let bytes = Array("123456789".utf8)
        var crc = CRC32()
        crc.update(bytes[0])
        bytes[1..<4].withUnsafeBytes { crc.update($0) }
        bytes[4...].withUnsafeBytes { crc.update($0) }
        #expect(crc.value == 0xCBF4_3926)
    }
}
