/// An NKey: an Ed25519 key pair as NATS decentralized authentication names
/// it, made by `NatsCredentialsScript.makeKeys`.
///
/// `publicKey` is what JWTs name as issuer and subject and what the server
/// matches; it starts with `O`, `A` or `U` for `kind`. `seed` is the secret
/// that signs (JWTs, and a client's answer to the server's nonce); it starts
/// with `SO`, `SA` or `SU`.
public struct NatsNKey: Sendable, Equatable {
    /// What the key identifies, which fixes its prefix byte (nats-io/nkeys).
    public enum Kind: String, Sendable {
        case `operator`, account, user
    }

    public let kind: Kind
    public let seed: String
    public let publicKey: String

    public init(kind: Kind, seed: String, publicKey: String) {
        self.kind = kind
        self.seed = seed
        self.publicKey = publicKey
    }
}
