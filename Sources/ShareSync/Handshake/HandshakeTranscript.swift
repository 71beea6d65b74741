import ShareLog

/// What both proofs of a handshake cover: both nonces, both replica ids,
/// the role and the directions (docs/SYNC.md "Security"). A proof is
/// HMAC-SHA256 under the shared key of a label naming the side that makes
/// it, then these fields, each of fixed length. Fresh nonces on both sides
/// make a proof good for one session only; the label keeps the server's
/// proof from passing as the client's; the role and directions bind what
/// was asked for, so nobody on the path can turn a pull into a push.
struct HandshakeTranscript {
    let hello: Message.Hello
    let serverReplica: ReplicaID
    let serverNonce: HandshakeNonce

    enum Side: String {
        case client = "sharelog-sync v1 client proof"
        case server = "sharelog-sync v1 server proof"
    }

    func proof(by side: Side, under key: SyncKey) -> HandshakeProof {
        let bytes = key.hmac(
            Array(side.rawValue.utf8), hello.nonce.bytes, serverNonce.bytes, hello.replica.wireBytes, serverReplica.wireBytes,
            [hello.role.rawValue, hello.directions.rawValue])
        // HMAC-SHA256 is 32 bytes, the size of a proof.
        return HandshakeProof(bytes: bytes)!
    }

    /// Whether `proof` is the one `side` makes under `key`, compared in
    /// constant time.
    func verify(_ proof: HandshakeProof, by side: Side, under key: SyncKey) -> Bool {
        SyncKey.constantTimeEqual(proof.bytes, self.proof(by: side, under: key).bytes)
    }
}
