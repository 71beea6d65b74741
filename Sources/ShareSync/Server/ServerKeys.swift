/// The key a `SyncServer` asks of the connections it accepts, with what is
/// derived from it: over TCP the one `TLSContext` every connection's TLS
/// runs under, and the key of the handshake's proofs. One value, made
/// whole before it is used, so a connection gets its TLS and its proof
/// from the same key: `SyncServer.replaceKey(with:)` swaps the value, and
/// never half of it.
///
/// A connection keeps the value it was accepted with: its `TLSChannel`
/// holds its context, and its `ServerHandshake` its proof key, until it
/// ends, whatever key the server asks of later connections.
struct ServerKeys: Sendable {
    /// The shared key; nil for a server that asks none (a Unix socket's
    /// file permissions, or ssh, keep strangers out).
    let key: SyncKey?
    /// TLS under `key`, for a TCP server; nil on other transports.
    let tls: TLSContext?
    /// The key the handshake's proofs are made with (`key`'s
    /// `.handshakeProof` key); nil without `key`.
    let proofKey: SyncKey?

    /// The keys of a server that asks `key`, with TLS when it listens on
    /// TCP.
    ///
    /// - Throws: `SyncFailure.handshake(.notAuthenticated)` for TCP without
    ///   a key, `.transport` when OpenSSL cannot set up the TLS context.
    init(key: SyncKey?, overTCP: Bool) throws(SyncFailure) {
        if overTCP {
            guard let key else {
                throw .handshake(.notAuthenticated("TCP is encrypted with TLS under a shared key; pass --key-file"))
            }
            do { tls = try TLSContext(role: .server, key: key) } catch { throw .transport(error) }
        } else {
            tls = nil
        }
        self.key = key
        proofKey = key?.derived(for: .handshakeProof)
    }
}
