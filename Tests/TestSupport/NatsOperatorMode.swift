/// Decentralized (JWT) authentication for every server of a `NatsCluster`:
/// the servers trust `trustedOperator` and hold the JWTs of its system
/// account and of `accounts` in a memory resolver (`resolver: MEMORY`,
/// `resolver_preload`). A client connects over plain `nats://` with a
/// `.creds` file (`NatsUser.credentials`) of a user one of those accounts
/// signed; any other client is refused ("Authorization Violation"). The
/// routes between servers and the monitoring port need no credentials.
public struct NatsOperatorMode: Sendable {
    public let trustedOperator: NatsOperator
    /// The accounts the servers know, besides the operator's system account.
    public let accounts: [NatsAccount]

    public init(trusting trustedOperator: NatsOperator, accounts: [NatsAccount]) {
        self.trustedOperator = trustedOperator
        self.accounts = accounts
    }

    /// Every account the servers' resolver holds: the system account first.
    public var preloadedAccounts: [NatsAccount] { [trustedOperator.systemAccount] + accounts }
}
