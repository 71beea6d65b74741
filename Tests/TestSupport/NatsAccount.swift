/// An account of NATS decentralized authentication: its key and the JWT its
/// operator signed (`NatsOperator.makeAccount`). Users of the account are
/// isolated from every other account's subjects and streams.
///
/// Its limits are those of nats-io/jwt v2's `OperatorLimits`, all
/// unlimited (-1): connections, subscriptions, data, payload, imports,
/// exports (wildcards allowed) and leaf nodes; with `jetStream`, also
/// memory and disk storage, streams and consumers, which is what turns
/// JetStream on for the account (a storage limit of 0, the default,
/// leaves it off). Its default permissions allow every subject.
public struct NatsAccount: Sendable {
    public let name: String
    public let key: NatsNKey
    public let jwt: String

    /// Signs the JWT of the account `key` with the operator key `issuer`.
    init(named name: String, key: NatsNKey, signedBy issuer: NatsNKey, jetStream: Bool) throws {
        precondition(key.kind == .account && issuer.kind == .operator, "an operator signs an account")
        self.name = name
        self.key = key
        var limits: [String: Any] = [
            "subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1, "wildcards": true, "conn": -1, "leaf": -1,
        ]
        if jetStream {
            limits.merge(["mem_storage": -1, "disk_storage": -1, "streams": -1, "consumer": -1]) { _, new in new }
        }
        let nats: [String: Any] = [
            "type": "account", "version": 2, "limits": limits,
            "default_permissions": ["pub": [String: Any](), "sub": [String: Any]()],
        ]
        jwt = try NatsCredentialsScript.sign(["sub": key.publicKey, "name": name, "nats": nats], by: issuer)
    }

    /// A new user of this account, its JWT signed by the account's key:
    /// every subject allowed to publish and subscribe (empty `pub` and
    /// `sub`), no limit on subscriptions, data or payload.
    /// - Throws: `HarnessFailure` when the script fails.
    public func makeUser(named name: String) throws -> NatsUser {
        let key = try NatsCredentialsScript.makeKeys([.user])[0]
        let nats: [String: Any] = [
            "type": "user", "version": 2, "pub": [String: Any](), "sub": [String: Any](), "subs": -1, "data": -1, "payload": -1,
        ]
        let jwt = try NatsCredentialsScript.sign(["sub": key.publicKey, "name": name, "nats": nats], by: self.key)
        return NatsUser(name: name, key: key, jwt: jwt)
    }
}
