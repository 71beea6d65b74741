import Glibc
import SharePrimitives

/// The secret two replicas share: 32 random bytes. Two keys are derived
/// from it (`derived(for:)`): one authenticates both sides of a TLS
/// connection (as a TLS 1.3 external pre-shared key), the other signs the
/// sync handshake's proofs (`hmac`).
///
/// A key file holds the key as 64 hexadecimal characters and a newline,
/// exactly what `openssl rand -hex 32` prints, and only its owner may read
/// it (mode 0600). See "Transports and keys" in docs/SYNC.md.
///
/// The key's bytes never appear in `description`, nor in `dump` or a
/// debugger's view (`customMirror` has no children), and they live in a
/// `SecretBytes`, zeroed when the last copy of the key goes.
public struct SyncKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The length of a key in bytes.
    public static let byteCount = 32

    let secret: SecretBytes

    /// A key of exactly `byteCount` bytes.
    init(bytes: [UInt8]) {
        self.init(secret: SecretBytes(bytes))
    }

    private init(secret: SecretBytes) {
        precondition(secret.count == Self.byteCount, "a sync key has \(Self.byteCount) bytes")
        self.secret = secret
    }

    public var description: String { "SyncKey(\(Self.byteCount) bytes, not shown)" }

    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// A new key from OpenSSL's random generator (`RAND_bytes`).
    public static func generate() -> SyncKey {
        SyncKey(secret: OpenSSLCrypto.randomSecret(byteCount))
    }

    /// 32 bytes from OpenSSL's random generator (`RAND_bytes`): a fresh
    /// challenge for each handshake.
    public static func randomNonce() -> [UInt8] {
        OpenSSLCrypto.randomBytes(32)
    }

    /// Reads the key file at `path`. Refuses a file that users other than
    /// its owner may read or write (`.exposed`: run `chmod 600`), and one
    /// that does not hold exactly 64 hexadecimal characters, optionally
    /// followed by a newline (`.malformed`).
    public static func load(from path: String) throws(SyncKeyError) -> SyncKey {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw .unreadable(path: path, errno: errno) }
        defer { Posix.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, errno: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .malformed(path: path, reason: "it is not a regular file") }
        guard status.st_mode & 0o077 == 0 else { throw .exposed(path: path, mode: UInt32(status.st_mode)) }
        // One byte more than the longest valid file, to tell "too long".
        let limit = 2 * byteCount + 2
        var text = [UInt8](repeating: 0, count: limit + 1)
        defer { SecretBytes.erase(&text) }
        var count = 0
        while count < text.count {
            let got = text.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .unreadable(path: path, errno: errno) }
            if got == 0 { break }
            count += got
        }
        return try parse(text[..<count], path: path)
    }

    /// The key in `text`: 64 hexadecimal characters (either case), then
    /// nothing, `\n` or `\r\n`.
    private static func parse(_ text: ArraySlice<UInt8>, path: String) throws(SyncKeyError) -> SyncKey {
        var digits = text
        if digits.last == UInt8(ascii: "\n") { digits.removeLast() }
        if digits.last == UInt8(ascii: "\r") { digits.removeLast() }
        guard digits.count == 2 * byteCount else {
            throw .malformed(path: path, reason: "it holds \(digits.count) characters instead of \(2 * byteCount)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        defer { SecretBytes.erase(&bytes) }
        var index = digits.startIndex
        while index < digits.endIndex {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
                throw .malformed(path: path, reason: "character \(index - digits.startIndex + 1) or the next is not a hexadecimal digit")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return SyncKey(bytes: bytes)
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Creates a key file at `path` holding this key, with mode 0600. Never
    /// replaces a file (`.exists`); a file left half-written by a failed
    /// write is removed.
    public func write(to path: String) throws(SyncKeyError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw errno == EEXIST ? .exists(path: path) : .unwritable(path: path, errno: errno)
        }
        let hex = Array("0123456789abcdef".utf8)
        var text = secret.withUnsafeBytes { bytes in bytes.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] } } + [UInt8(ascii: "\n")]
        defer { SecretBytes.erase(&text) }
        var failure: Int32 = 0
        // The umask may have taken bits away from 0600; it cannot add any.
        if fchmod(descriptor, 0o600) != 0 { failure = errno }
        var offset = 0
        while failure == 0, offset < text.count {
            let written = text.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { failure = written < 0 ? errno : EIO } else { offset += written }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        Posix.close(descriptor)
        guard failure == 0 else {
            _ = unlink(path)
            throw .unwritable(path: path, errno: failure)
        }
    }

    /// HMAC-SHA256 under this key (OpenSSL `EVP_MAC` "HMAC" with digest
    /// "SHA256") of the concatenation of `parts`. The boundaries between
    /// parts are not part of the input: callers give each part a fixed
    /// length or a length prefix.
    public func hmac(_ parts: [UInt8]...) -> [UInt8] {
        secret.withUnsafeBytes { OpenSSLCrypto.hmacSHA256(key: $0, parts: parts) }
    }

    /// What a key derived from the shared one is for. Each job has a key
    /// of its own, so that no value made with one (a TLS binder, a proof)
    /// ever serves as the other.
    public enum Purpose: String, Sendable {
        /// The TLS 1.3 external pre-shared key of sync over TCP.
        case tlsPreSharedKey = "sharelog-sync v2 tls psk"
        /// The HMAC key of the handshake's proofs.
        case handshakeProof = "sharelog-sync v2 handshake proof"
    }

    /// The key for `purpose`: HKDF-SHA256 of this key, with the purpose's
    /// name as its info (docs/SYNC.md "Keys").
    public func derived(for purpose: Purpose) -> SyncKey {
        let info = Array(purpose.rawValue.utf8)
        return SyncKey(secret: SecretBytes(count: Self.byteCount) { output in
            secret.withUnsafeBytes { OpenSSLCrypto.hkdfSHA256(key: $0, info: info, into: output) }
        })
    }

    /// Whether `a` and `b` are equal, in a time that depends on their
    /// length only, never on where they differ (`CRYPTO_memcmp`). Use it to
    /// compare a received MAC with the expected one.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        OpenSSLCrypto.constantTimeEqual(a, b)
    }
}
