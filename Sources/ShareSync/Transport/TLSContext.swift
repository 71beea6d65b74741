internal import COpenSSL

/// The OpenSSL configuration (`SSL_CTX`) of one side of sync's TLS, keyed
/// by a `SyncKey`: TLS 1.3 only, one cipher suite, and authentication of
/// both sides by the key's TLS key (`SyncKey.derived(for:
/// .tlsPreSharedKey)`) as a TLS 1.3 external pre-shared key (RFC 8446
/// §2.2, §4.2.11). No certificates are used.
///
/// - Protocol: `TLS1_3_VERSION` is both the minimum and the maximum.
/// - Cipher suite: `TLS_AES_128_GCM_SHA256` only, so the key's hash is
///   always SHA-256.
/// - Key exchange: `psk_dhe_ke` (the PSK with an ephemeral (EC)DHE share),
///   OpenSSL's default; PSK-only exchange (`SSL_OP_ALLOW_NO_DHE_KEX`) is
///   not allowed, so a key that leaks later does not decrypt recorded
///   sessions.
/// - Identity: the client offers the fixed identity `sharelog-sync-v2`
///   (protocol 1 offered `sharelog-sync-v1` with the shared key itself; a
///   server of protocol 2 answers it with no key, so such a client fails
///   the TLS handshake);
///   the server answers it with the same key. A side that holds another
///   key fails the PSK binder check: OpenSSL reports "binder does not
///   verify" on the server and the server's `decrypt_error` alert on the
///   client, and both become `TransportError.tlsKeyMismatch`.
/// - No session tickets and no session cache: every connection runs a
///   full handshake.
///
/// Thread-safety: the context is configured in `init` and never changed
/// after, and OpenSSL lets many threads create connections (`SSL_new`) from
/// one unchanging `SSL_CTX` at once; its PSK callbacks only read the key.
/// So one context per role is shared by all of a server's threads.
/// `@unchecked Sendable` because its `SSL_CTX` pointer and key memory are
/// immutable after `init`, for the reasons above.
public final class TLSContext: @unchecked Sendable {
    /// Which side of the handshake a context serves.
    public enum Role: Sendable {
        case server, client
    }

    public let role: Role
    /// The `SSL_CTX`, freed in `deinit`.
    let handle: OpaquePointer
    /// The key's bytes, where the PSK callbacks find them (the context's
    /// ex-data slot 0, `SSL_CTX_set_app_data`'s slot). Wiped in `deinit`.
    private let keyBytes: UnsafeMutableRawBufferPointer

    /// The PSK identity the client offers: fixed, it names the scheme, not
    /// the key.
    static let identity: StaticString = "sharelog-sync-v2"
    /// The one TLS 1.3 cipher suite offered and accepted.
    static let cipherSuiteName = "TLS_AES_128_GCM_SHA256"

    /// A context for `role` that authenticates with `key`'s TLS key.
    public init(role: Role, key: SyncKey) throws(TransportError) {
        let key = key.derived(for: .tlsPreSharedKey)
        guard let handle = SSL_CTX_new(role == .server ? TLS_server_method() : TLS_client_method()) else {
            throw .tls(operation: "set-up", peer: "no peer yet", details: OpenSSLErrorQueue.drain())
        }
        let keyBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: SyncKey.byteCount, alignment: 1)
        key.secret.withUnsafeBytes { keyBytes.copyBytes(from: $0) }
        self.keyBytes = keyBytes
        self.role = role
        self.handle = handle
        let version = Int(TLS1_3_VERSION)
        guard SSL_CTX_ctrl(handle, SSL_CTRL_SET_MIN_PROTO_VERSION, version, nil) == 1,
            SSL_CTX_ctrl(handle, SSL_CTRL_SET_MAX_PROTO_VERSION, version, nil) == 1,
            SSL_CTX_set_ciphersuites(handle, Self.cipherSuiteName) == 1,
            SSL_CTX_set_num_tickets(handle, 0) == 1,
            SSL_CTX_set_ex_data(handle, 0, keyBytes.baseAddress) == 1
        else {
            throw .tls(operation: "set-up", peer: "no peer yet", details: OpenSSLErrorQueue.drain())
        }
        _ = SSL_CTX_ctrl(handle, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        switch role {
        case .server: SSL_CTX_set_psk_find_session_callback(handle, findSession)
        case .client: SSL_CTX_set_psk_use_session_callback(handle, useSession)
        }
    }

    deinit {
        SSL_CTX_free(handle)
        OPENSSL_cleanse(keyBytes.baseAddress, keyBytes.count)
        keyBytes.deallocate()
    }

    /// A new `SSL_SESSION` that carries the key of `ssl`'s context as a TLS
    /// 1.3 PSK for `TLS_AES_128_GCM_SHA256`; nil if OpenSSL cannot make one.
    /// The caller owns it (the PSK callbacks hand it over to OpenSSL).
    static func pskSession(for ssl: OpaquePointer) -> OpaquePointer? {
        guard let key = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), 0), let cipher = cipher(for: ssl),
            let session = SSL_SESSION_new()
        else { return nil }
        guard SSL_SESSION_set1_master_key(session, key.assumingMemoryBound(to: UInt8.self), SyncKey.byteCount) == 1,
            SSL_SESSION_set_cipher(session, cipher) == 1,
            SSL_SESSION_set_protocol_version(session, TLS1_3_VERSION) == 1
        else {
            SSL_SESSION_free(session)
            return nil
        }
        return session
    }

    /// The `SSL_CIPHER` of `TLS_AES_128_GCM_SHA256` (code 0x13 0x01).
    static func cipher(for ssl: OpaquePointer) -> OpaquePointer? {
        var code: (UInt8, UInt8) = (0x13, 0x01)
        return withUnsafeBytes(of: &code) { SSL_CIPHER_find(ssl, $0.baseAddress?.assumingMemoryBound(to: UInt8.self)) }
    }
}

/// The server's PSK callback (`SSL_psk_find_session_cb_func`): answers the
/// identity `sharelog-sync-v2` with the key. Another identity gets no PSK,
/// and the handshake then fails, since the server has no certificate.
private let findSession: SSL_psk_find_session_cb_func = { ssl, identity, identityLength, session in
    guard let ssl, let session else { return 0 }
    session.pointee = nil
    let expected = TLSContext.identity
    guard let identity, identityLength == expected.utf8CodeUnitCount,
        memcmp(identity, expected.utf8Start, identityLength) == 0
    else { return 1 }
    guard let psk = TLSContext.pskSession(for: ssl) else { return 0 }
    session.pointee = psk
    return 1
}

/// The client's PSK callback (`SSL_psk_use_session_cb_func`): offers the
/// key under the identity `sharelog-sync-v2`. OpenSSL may call it a second
/// time (after a HelloRetryRequest) with the server's chosen hash in
/// `digest`; the key is offered again only for SHA-256. Each call hands a
/// new session over to OpenSSL.
private let useSession: SSL_psk_use_session_cb_func = { ssl, digest, identity, identityLength, session in
    guard let ssl, let identity, let identityLength, let session else { return 0 }
    session.pointee = nil
    if let digest {
        guard let cipher = TLSContext.cipher(for: ssl), SSL_CIPHER_get_handshake_digest(cipher) == digest else { return 1 }
    }
    guard let psk = TLSContext.pskSession(for: ssl) else { return 0 }
    identity.pointee = TLSContext.identity.utf8Start
    identityLength.pointee = TLSContext.identity.utf8CodeUnitCount
    session.pointee = psk
    return 1
}
