internal import COpenSSL
import SharePrimitives

/// The cryptographic primitives sync and the gateway's write API use, all
/// computed by OpenSSL's libcrypto: random bytes, SHA-256, HMAC-SHA256,
/// HKDF-SHA256 and constant-time comparison. `package`: ShareHTTP's tokens
/// and uploads use it too, so each call has one wrapper.
///
/// Each traps if libcrypto cannot do its work at all (no random source, no
/// SHA-256 in the loaded providers): that is a broken installation, not a
/// condition a caller can act on, and Swift's own random generator traps in
/// the same case.
package enum OpenSSLCrypto {
    /// `count` bytes from `RAND_bytes`.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let done = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard done == 1 else { fatalError("OpenSSL's RAND_bytes failed: \(OpenSSLErrorQueue.drain().joined(separator: "; "))") }
        return bytes
    }

    /// `count` bytes from `RAND_bytes`, written straight into a secret.
    package static func randomSecret(_ count: Int) -> SecretBytes {
        SecretBytes(count: count) { buffer in
            guard RAND_bytes(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1 else {
                fatalError("OpenSSL's RAND_bytes failed: \(OpenSSLErrorQueue.drain().joined(separator: "; "))")
            }
        }
    }

    /// HMAC-SHA256 of the concatenation of `parts` under `key`, any length,
    /// through `EVP_MAC_fetch("HMAC")` with the digest parameter "SHA256".
    package static func hmacSHA256(key: [UInt8], parts: [[UInt8]]) -> [UInt8] {
        key.withUnsafeBytes { hmacSHA256(key: $0, parts: parts) }
    }

    /// `hmacSHA256(key:parts:)` with the key read in place (a
    /// `SecretBytes`'s), so that no copy of it is left behind.
    static func hmacSHA256(key: UnsafeRawBufferPointer, parts: [[UInt8]]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: 32)
        mac.withUnsafeMutableBytes { hmacSHA256(key: key, parts: parts, into: $0) }
        return mac
    }

    /// HMAC-SHA256 under a secret key when the result is itself a secret (a
    /// ratchet's next state, a derived key): neither leaves `SecretBytes`.
    static func hmacSHA256(key: SecretBytes, parts: [[UInt8]]) -> SecretBytes {
        SecretBytes(count: 32) { output in key.withUnsafeBytes { hmacSHA256(key: $0, parts: parts, into: output) } }
    }

    /// HMAC-SHA256 of `parts` under `key`, written into `output` (32 bytes).
    private static func hmacSHA256(key: UnsafeRawBufferPointer, parts: [[UInt8]], into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count == 32, "HMAC-SHA256 writes 32 bytes")
        guard let algorithm = EVP_MAC_fetch(nil, "HMAC", nil) else { fail("EVP_MAC_fetch(HMAC)") }
        defer { EVP_MAC_free(algorithm) }
        guard let context = EVP_MAC_CTX_new(algorithm) else { fail("EVP_MAC_CTX_new") }
        defer { EVP_MAC_CTX_free(context) }
        // "digest" is OSSL_MAC_PARAM_DIGEST, a macro Swift does not import.
        let initialized = "digest".withCString { name in
            "SHA256".withCString { digest in
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return EVP_MAC_init(context, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, &parameters)
            }
        }
        guard initialized == 1 else { fail("EVP_MAC_init(HMAC, SHA256)") }
        for part in parts {
            guard part.withUnsafeBufferPointer({ EVP_MAC_update(context, $0.baseAddress, $0.count) }) == 1 else {
                fail("EVP_MAC_update")
            }
        }
        var length = 0
        guard EVP_MAC_final(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, output.count) == 1, length == 32
        else { fail("EVP_MAC_final") }
    }

    /// HKDF-SHA256 (RFC 5869) of `key` with `info` and no salt, written
    /// into `output` (32 bytes), through `EVP_KDF_fetch("HKDF")`, extract
    /// then expand. Reads the key and writes the result in place, so a
    /// `SecretBytes` key derives a `SecretBytes` key with no copy between.
    static func hkdfSHA256(key: UnsafeRawBufferPointer, info: [UInt8], into output: UnsafeMutableRawBufferPointer) {
        guard let algorithm = EVP_KDF_fetch(nil, "HKDF", nil) else { fail("EVP_KDF_fetch(HKDF)") }
        defer { EVP_KDF_free(algorithm) }
        guard let context = EVP_KDF_CTX_new(algorithm) else { fail("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(context) }
        // "digest", "key" and "info" are OSSL_KDF_PARAM_*, macros Swift
        // does not import.
        let derived = "digest".withCString { digestName in
            "SHA256".withCString { digest in
                "key".withCString { keyName in
                    "info".withCString { infoName in
                        info.withUnsafeBytes { infoBytes in
                            var parameters = [
                                OSSL_PARAM_construct_utf8_string(digestName, UnsafeMutablePointer(mutating: digest), 0),
                                OSSL_PARAM_construct_octet_string(keyName, UnsafeMutableRawPointer(mutating: key.baseAddress), key.count),
                                OSSL_PARAM_construct_octet_string(infoName, UnsafeMutableRawPointer(mutating: infoBytes.baseAddress), infoBytes.count),
                                OSSL_PARAM_construct_end(),
                            ]
                            return EVP_KDF_derive(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, &parameters)
                        }
                    }
                }
            }
        }
        guard derived == 1 else { fail("EVP_KDF_derive(HKDF, SHA256)") }
    }

    /// SHA-256 of the concatenation of `parts`, through `EVP_Digest*`.
    package static func sha256(_ parts: [UInt8]...) -> [UInt8] {
        sha256 { update in for part in parts { part.withUnsafeBytes(update) } }
    }

    /// SHA-256 of a secret, read in place.
    package static func sha256(_ secret: SecretBytes) -> [UInt8] {
        sha256 { update in secret.withUnsafeBytes(update) }
    }

    /// SHA-256 of what `feed` hands to the update function it is given.
    private static func sha256(_ feed: ((UnsafeRawBufferPointer) -> Void) -> Void) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { fail("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { fail("EVP_DigestInit_ex(SHA256)") }
        feed { bytes in
            guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else { fail("EVP_DigestUpdate") }
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 32 else { fail("EVP_DigestFinal_ex") }
        return digest
    }

    /// `CRYPTO_memcmp` of two byte strings; different lengths are unequal.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { left in b.withUnsafeBytes { right in constantTimeEqual(left, right) } }
    }

    /// `constantTimeEqual` of two secrets, read in place.
    static func constantTimeEqual(_ a: SecretBytes, _ b: SecretBytes) -> Bool {
        a.withUnsafeBytes { left in b.withUnsafeBytes { right in constantTimeEqual(left, right) } }
    }

    private static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        return CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
    }

    private static func fail(_ operation: String) -> Never {
        fatalError("OpenSSL's \(operation) failed: \(OpenSSLErrorQueue.drain().joined(separator: "; "))")
    }
}
