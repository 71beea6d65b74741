import SharePrimitives
import Testing

/// Secret bytes read back what they were given and never print them.
@Suite struct SecretBytesTests {
    @Test func itReadsBackItsBytes() {
        let secret = SecretBytes([1, 2, 3, 250])
        #expect(secret.count == 4)
        #expect(secret.withUnsafeBytes { Array($0) } == [1, 2, 3, 250])
    }

    @Test func printingShowsTheCountAndNoByte() {
        let secret = SecretBytes([0xAB, 0xCD, 0xEF])
        for text in ["\(secret)", String(describing: secret), String(reflecting: secret)] {
            #expect(text == "<secret, 3 bytes>")
        }
    }

    @Test func aFillThatFailsLeavesNoSecret() {
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            _ = try SecretBytes(count: 32) { (_: UnsafeMutableRawBufferPointer) throws(Refused) in throw Refused() }
        }
        let filled = SecretBytes(count: 2) { $0.copyBytes(from: [7, 9]) }
        #expect(filled.withUnsafeBytes { Array($0) } == [7, 9])
    }

    @Test func eraseZeroesATransientCopyInPlace() {
        var copy: [UInt8] = [0x5E, 0xC2, 0xE7, 0xFF]
        SecretBytes.erase(&copy)
        #expect(copy == [0, 0, 0, 0])
    }
}
