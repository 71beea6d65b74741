import Foundation
import Glibc
import Testing
import TestSupport
@testable import ShareSync
import TestTraits

/// A sync key lives in a file only its owner may read, in the format
/// `openssl rand -hex 32` prints, and its HMAC is OpenSSL's HMAC-SHA256.
@Suite(.hangDeadline) struct SyncKeyTests {
    private static let openssl = "/usr/bin/openssl"

    /// HMAC-SHA256 of `data` under the key `hexKey` as the openssl command computes it.
    private func opensslHMAC(hexKey: String, data: [UInt8]) throws -> String {
        let outcome = try Subprocess.run(
            Self.openssl, ["mac", "-digest", "SHA256", "-macopt", "hexkey:\(hexKey)", "HMAC"], input: data, timeout: .seconds(60))
        #expect(outcome.status == 0, "\(String(decoding: outcome.error, as: UTF8.self))")
        return String(decoding: outcome.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private func createFile(_ path: String, _ text: String, mode: mode_t) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
        #expect(descriptor >= 0)
        _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        #expect(fchmod(descriptor, mode) == 0)
        close(descriptor)
    }

    @Test func aWrittenKeyIsAnOwnerOnlyFileOfHexThatOpenSSLReadsAsTheSameKey() throws {
        let directory = TemporaryDirectory("key")
        let path = directory.appending("sync.key")
        let key = SyncKey.generate()
        try key.write(to: path)

        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.count == 65)
        #expect(text.last == "\n")
        let digits = String(text.dropLast())
        #expect(digits.allSatisfy { "0123456789abcdef".contains($0) })

        let data = Array("the handshake's challenge".utf8)
        let loaded = try SyncKey.load(from: path)
        #expect(hex(loaded.hmac(data)) == (try opensslHMAC(hexKey: digits, data: data)))
        #expect(hex(key.hmac(data)) == (try opensslHMAC(hexKey: digits, data: data)))
    }

    @Test func aKeyMadeByOpenSSLRandHexLoads() throws {
        let directory = TemporaryDirectory("key")
        let path = directory.appending("made-by-openssl.key")
        let made = try Subprocess.run(Self.openssl, ["rand", "-hex", "32"], timeout: .seconds(60))
        #expect(made.status == 0)
        let text = String(decoding: made.output, as: UTF8.self)
        createFile(path, text, mode: 0o600)
        let data: [UInt8] = Array(0...255)
        let key = try SyncKey.load(from: path)
        #expect(hex(key.hmac(Array(data[..<100]), Array(data[100...]))) == (try opensslHMAC(hexKey: String(text.dropLast()), data: data)))
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o620] as [mode_t])
    func aKeyFileOthersMayReadOrWriteIsRefused(mode: mode_t) throws {
        let directory = TemporaryDirectory("key")
        let path = directory.appending("open.key")
        createFile(path, String(repeating: "ab", count: 32) + "\n", mode: mode)
        let error = #expect(throws: SyncKeyError.self) { try SyncKey.load(from: path) }
        #expect(error == .exposed(path: path, mode: UInt32(S_IFREG | mode)))
        #expect(error?.description.contains("chmod 600 \(path)") == true)
    }

    @Test(arguments: [
        ("zz" + String(repeating: "0", count: 62), "character 1 or the next is not a hexadecimal digit"),
        (String(repeating: "0", count: 62) + "0g", "character 63 or the next is not a hexadecimal digit"),
        (String(repeating: "0", count: 62), "it holds 62 characters instead of 64"),
        (String(repeating: "0", count: 66), "it holds 66 characters instead of 64"),
        (String(repeating: "0", count: 64) + "\n\n", "it holds 65 characters instead of 64"),
        (" " + String(repeating: "0", count: 63), "character 1 or the next is not a hexadecimal digit"),
        ("", "it holds 0 characters instead of 64"),
    ])
    func aKeyFileThatIsNotSixtyFourHexDigitsIsRefused(text: String, reason: String) throws {
        let directory = TemporaryDirectory("key")
        let path = directory.appending("bad.key")
        createFile(path, text, mode: 0o600)
        #expect(throws: SyncKeyError.malformed(path: path, reason: reason)) { try SyncKey.load(from: path) }
    }

    @Test func upperCaseHexAndACRLFAreAccepted() throws {
        let directory = TemporaryDirectory("key")
        let lower = directory.appending("lower.key"), upper = directory.appending("upper.key")
        let digits = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
        createFile(lower, digits, mode: 0o600)
        createFile(upper, digits.uppercased() + "\r\n", mode: 0o600)
        #expect(try SyncKey.load(from: upper).hmac([1]) == (try SyncKey.load(from: lower).hmac([1])))
    }

    @Test func aMissingKeyFileIsReportedAsUnreadable() {
        let directory = TemporaryDirectory("key")
        let path = directory.appending("missing.key")
        #expect(throws: SyncKeyError.unreadable(path: path, errno: ENOENT)) { try SyncKey.load(from: path) }
    }

    @Test func writingNeverReplacesAFile() throws {
        let directory = TemporaryDirectory("key")
        let path = directory.appending("taken.key")
        createFile(path, "keep me", mode: 0o600)
        #expect(throws: SyncKeyError.exists(path: path)) { try SyncKey.generate().write(to: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    /// RFC 4231, test case 2.
    @Test func hmacIsHMACSHA256() {
        let mac = OpenSSLCrypto.hmacSHA256(key: Array("Jefe".utf8), parts: [Array("what do ya want ".utf8), Array("for nothing?".utf8)])
        #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func constantTimeEqualityComparesEveryByteAndTheLength() {
        let bytes: [UInt8] = Array(0..<32)
        var last = bytes
        last[31] ^= 1
        var first = bytes
        first[0] ^= 0x80
        #expect(SyncKey.constantTimeEqual(bytes, Array(0..<32)))
        #expect(!SyncKey.constantTimeEqual(bytes, last))
        #expect(!SyncKey.constantTimeEqual(bytes, first))
        #expect(!SyncKey.constantTimeEqual(bytes, Array(bytes.prefix(31))))
        #expect(SyncKey.constantTimeEqual([], []))
    }

    @Test func noncesAndKeysAreFreshRandomBytes() throws {
        let nonces = (0..<8).map { _ in SyncKey.randomNonce() }
        #expect(nonces.allSatisfy { $0.count == 32 })
        #expect(Set(nonces.map(hex)).count == 8)
        let directory = TemporaryDirectory("key")
        try SyncKey.generate().write(to: directory.appending("a.key"))
        try SyncKey.generate().write(to: directory.appending("b.key"))
        let first = try String(contentsOfFile: directory.appending("a.key"), encoding: .utf8)
        #expect(try String(contentsOfFile: directory.appending("b.key"), encoding: .utf8) != first)
    }

    @Test func aKeyNeverPrintsItsBytes() throws {
        let directory = TemporaryDirectory("key")
        let path = directory.appending("secret.key")
        let key = SyncKey.generate()
        try key.write(to: path)
        let digits = try String(contentsOfFile: path, encoding: .utf8).dropLast()
        #expect(!"\(key)".contains(digits.prefix(8)))
        #expect(!String(reflecting: key).contains(digits.prefix(8)))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(dumped == "- SyncKey(32 bytes, not shown)\n", "\(dumped)")
    }
}
