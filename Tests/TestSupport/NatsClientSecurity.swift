/// What every server of a `NatsCluster` demands of its clients: TLS under
/// a certificate `authority` signed, a client certificate that authority
/// signed too (mutual TLS, `verify: true`), and `user` with `password`.
/// The routes between servers and the monitoring port stay plain.
public struct NatsClientSecurity: Sendable {
    public let authority: TestCertificateAuthority
    public let user: String
    public let password: String

    public init(authority: TestCertificateAuthority, user: String, password: String) {
        self.authority = authority
        self.user = user
        self.password = password
    }
}
