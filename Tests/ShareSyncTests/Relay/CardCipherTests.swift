import SharePrimitives
import Testing
@testable import ShareSync

/// AES-256-GCM as OpenSSL runs it for sealed relay bodies, against the
/// 256-bit test cases 13 to 16 of McGrew and Viega, "The Galois/Counter Mode
/// of Operation (GCM)" (the values hard-coded from the paper, also in NIST's
/// GCM validation examples).
@Suite struct CardCipherTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let nonce: String
        let plaintext: String
        let aad: String
        let ciphertext: String
        let tag: String
        var testDescription: String { name }
    }

    static let specKey = "feffe9928665731c6d6a8f9467308308 feffe9928665731c6d6a8f9467308308"
    static let specPlaintext60 =
        "d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72 1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b39"
    static let specCiphertext60 =
        "522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa 8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662"

    static let vectors: [Vector] = [
        Vector(
            name: "test case 13: empty plaintext", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
            plaintext: "", aad: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(
            name: "test case 14: one zero block", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
            plaintext: String(repeating: "00", count: 16), aad: "", ciphertext: "cea7403d4d606b6e074ec5d3baf39d18",
            tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(
            name: "test case 15: four blocks", key: specKey, nonce: "cafebabefacedbaddecaf888",
            plaintext: specPlaintext60 + " 1aafd255", aad: "", ciphertext: specCiphertext60 + " 898015ad",
            tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(
            name: "test case 16: partial block and AAD", key: specKey, nonce: "cafebabefacedbaddecaf888",
            plaintext: specPlaintext60, aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", ciphertext: specCiphertext60,
            tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: vectors) func sealingGivesThePublishedCiphertextAndTag(_ vector: Vector) {
        let sealed = CardCipher.seal(hex(vector.plaintext), key: SecretBytes(hex(vector.key)), nonce: hex(vector.nonce), aad: hex(vector.aad))
        #expect(sealed == hex(vector.ciphertext) + hex(vector.tag))
    }

    @Test(arguments: vectors) func openingThePublishedCiphertextGivesThePlaintext(_ vector: Vector) {
        let sealed = hex(vector.ciphertext) + hex(vector.tag)
        let opened = CardCipher.open(sealed[...], key: SecretBytes(hex(vector.key)), nonce: hex(vector.nonce), aad: hex(vector.aad))
        #expect(opened == hex(vector.plaintext))
    }

    @Test(arguments: vectors) func aChangedTagOrAADIsRefused(_ vector: Vector) {
        var sealed = hex(vector.ciphertext) + hex(vector.tag)
        sealed[sealed.count - 1] ^= 0x01
        #expect(CardCipher.open(sealed[...], key: SecretBytes(hex(vector.key)), nonce: hex(vector.nonce), aad: hex(vector.aad)) == nil)
        let intact = hex(vector.ciphertext) + hex(vector.tag)
        #expect(CardCipher.open(intact[...], key: SecretBytes(hex(vector.key)), nonce: hex(vector.nonce), aad: hex(vector.aad) + [0]) == nil)
    }

    @Test func aBodyShorterThanATagIsRefused() {
        for count in 0..<CardCipher.tagCount {
            let short = [UInt8](repeating: 0, count: count)
            let zeros = [UInt8](repeating: 0, count: 32)
            #expect(CardCipher.open(short[...], key: SecretBytes(zeros), nonce: Array(zeros.prefix(12)), aad: []) == nil)
        }
    }
}
