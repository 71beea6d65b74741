internal import COpenSSL
import SharePrimitives

/// AES-256-GCM through OpenSSL's `EVP_aes_256_gcm`: the cipher that seals a
/// relayed event under an hour's card key (`RelayEnvelope`).
///
/// Keys are 32 bytes, nonces 12 bytes (GCM's 96-bit IV, used directly as
/// the initial counter block), tags 16 bytes. A nonce must never repeat
/// under one key; `RelayEnvelope` draws each at random.
///
/// Traps, like `OpenSSLCrypto`, if libcrypto cannot run the cipher at all
/// (a broken installation, not a condition a caller can act on).
enum CardCipher {
    static let keyCount = 32
    static let nonceCount = 12
    static let tagCount = 16

    /// The ciphertext of `plaintext` (same length) followed by the 16-byte
    /// tag that authenticates it together with `aad`.
    static func seal(_ plaintext: [UInt8], key: SecretBytes, nonce: [UInt8], aad: [UInt8]) -> [UInt8] {
        precondition(key.count == keyCount && nonce.count == nonceCount, "AES-256-GCM takes a 32-byte key and a 12-byte nonce")
        let context = newContext()
        defer { EVP_CIPHER_CTX_free(context) }
        let initialized = key.withUnsafeBytes { EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce) }
        guard initialized == 1 else { fail("EVP_EncryptInit_ex") }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, aad, int32(aad.count)) == 1 else { fail("EVP_EncryptUpdate(AAD)") }
        }
        // One block of slack: EVP's contract for update, although GCM, a
        // stream mode, writes exactly as many bytes as it reads.
        var sealed = [UInt8](repeating: 0, count: plaintext.count + 16 + tagCount)
        var written = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &sealed, &length, plaintext, int32(plaintext.count)) == 1 else {
                fail("EVP_EncryptUpdate")
            }
            written = Int(length)
        }
        let finished = sealed.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(context, $0.baseAddress! + written, &length) }
        guard finished == 1 else { fail("EVP_EncryptFinal_ex") }
        written += Int(length)
        precondition(written == plaintext.count, "AES-GCM wrote \(written) bytes for \(plaintext.count)")
        var tag = [UInt8](repeating: 0, count: tagCount)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagCount), &tag) == 1 else {
            fail("EVP_CIPHER_CTX_ctrl(GET_TAG)")
        }
        return Array(sealed[..<written]) + tag
    }

    /// The plaintext of `sealed` (ciphertext then 16-byte tag), or nil when
    /// the tag does not verify: a wrong key, nonce or `aad`, or any changed
    /// byte. Nothing of the plaintext is returned unless the tag verifies.
    static func open(_ sealed: ArraySlice<UInt8>, key: SecretBytes, nonce: [UInt8], aad: [UInt8]) -> [UInt8]? {
        precondition(key.count == keyCount && nonce.count == nonceCount, "AES-256-GCM takes a 32-byte key and a 12-byte nonce")
        guard sealed.count >= tagCount else { return nil }
        let ciphertext = Array(sealed.dropLast(tagCount))
        var tag = Array(sealed.suffix(tagCount))
        let context = newContext()
        defer { EVP_CIPHER_CTX_free(context) }
        let initialized = key.withUnsafeBytes { EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce) }
        guard initialized == 1 else { fail("EVP_DecryptInit_ex") }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, aad, int32(aad.count)) == 1 else { fail("EVP_DecryptUpdate(AAD)") }
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written = 0
        if !ciphertext.isEmpty {
            guard EVP_DecryptUpdate(context, &plaintext, &length, ciphertext, int32(ciphertext.count)) == 1 else {
                fail("EVP_DecryptUpdate")
            }
            written = Int(length)
        }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagCount), &tag) == 1 else {
            fail("EVP_CIPHER_CTX_ctrl(SET_TAG)")
        }
        let verified = plaintext.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(context, $0.baseAddress! + written, &length) }
        guard verified == 1 else {
            // A failed tag check leaves nothing to report; keep the
            // thread's queue clean for the next OpenSSL call.
            OpenSSLErrorQueue.clear()
            return nil
        }
        written += Int(length)
        return Array(plaintext[..<written])
    }

    private static func newContext() -> OpaquePointer {
        guard let context = EVP_CIPHER_CTX_new() else { fail("EVP_CIPHER_CTX_new") }
        return context
    }

    /// `count` as the `int` EVP takes; an event never comes near 2 GiB.
    private static func int32(_ count: Int) -> Int32 {
        guard let value = Int32(exactly: count) else { preconditionFailure("AES-GCM input of \(count) bytes exceeds Int32") }
        return value
    }

    private static func fail(_ operation: String) -> Never {
        fatalError("OpenSSL's \(operation) failed: \(OpenSSLErrorQueue.drain().joined(separator: "; "))")
    }
}
