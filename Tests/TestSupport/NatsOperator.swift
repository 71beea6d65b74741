/// An operator of NATS decentralized authentication, made without `nsc`
/// (what `nsc add operator --sys` makes): its key, its self-signed JWT, and
/// its system account. A `nats-server` that trusts the operator
/// (`NatsOperatorMode`) admits a user whose JWT an account signed, when the
/// operator signed that account's JWT and the server's resolver holds it.
///
/// The system account is where the server runs its own services; nats-server
/// 2.9 in operator mode refuses to start JetStream without one ("system
/// account not setup"). The operator's JWT names it (`system_account`), as
/// the server's config does.
///
/// Every JWT here carries `iat`, the machine's real clock at signing, and no
/// `exp` or `nbf`: nats-server checks those two against its real clock, and
/// `iat` against no clock (it only orders two JWTs of one account), so no
/// JWT expires and nothing depends on today's date (nor on the `--now` of
/// the relay's tests).
public struct NatsOperator: Sendable {
    public let name: String
    public let key: NatsNKey
    public let jwt: String
    public let systemAccount: NatsAccount

    /// Makes the operator's and the system account's keys and JWTs
    /// (`NatsCredentialsScript`).
    /// - Throws: `HarnessFailure` when the script fails.
    public init(named name: String) throws {
        let keys = try NatsCredentialsScript.makeKeys([.operator, .account])
        self.name = name
        key = keys[0]
        systemAccount = try NatsAccount(named: "SYS", key: keys[1], signedBy: keys[0], jetStream: false)
        let claims: [String: Any] = [
            "sub": key.publicKey, "name": name,
            "nats": ["type": "operator", "version": 2, "system_account": systemAccount.key.publicKey] as [String: Any],
        ]
        jwt = try NatsCredentialsScript.sign(claims, by: key)
    }

    /// A new account that this operator signed, with JetStream and every
    /// other limit unlimited. A server knows it only once it is among the
    /// `accounts` of its `NatsOperatorMode`.
    /// - Throws: `HarnessFailure` when the script fails.
    public func makeAccount(named name: String) throws -> NatsAccount {
        try NatsAccount(named: name, key: NatsCredentialsScript.makeKeys([.account])[0], signedBy: key, jetStream: true)
    }
}
