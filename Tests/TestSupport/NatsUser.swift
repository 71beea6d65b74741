import Foundation

/// A user of NATS decentralized authentication: its JWT, which its account
/// signed, and its key, whose seed answers the server's nonce at connect.
/// `credentials` is the two together as a `.creds` file, what a NATS
/// client's `--creds` takes.
///
/// `init` pairs any JWT with any key, so a test can make a file whose seed
/// is not the one its JWT names.
public struct NatsUser: Sendable {
    public let name: String
    public let key: NatsNKey
    public let jwt: String

    public init(name: String, key: NatsNKey, jwt: String) {
        self.name = name
        self.key = key
        self.jwt = jwt
    }

    /// The `.creds` file, as nats-io/jwt's `FormatUserConfig` (and so `nsc
    /// generate creds`) writes it: the JWT between `-----BEGIN NATS USER
    /// JWT-----` and `------END NATS USER JWT------` (five dashes, then six),
    /// the warning, and the seed between `-----BEGIN USER NKEY SEED-----` and
    /// `------END USER NKEY SEED------`.
    public var credentials: String {
        """
        -----BEGIN NATS USER JWT-----
        \(jwt)
        ------END NATS USER JWT------

        ************************* IMPORTANT *************************
        NKEY Seed printed below can be used to sign and prove identity.
        NKEYs are sensitive and should be treated as secrets.

        -----BEGIN USER NKEY SEED-----
        \(key.seed)
        ------END USER NKEY SEED------

        *************************************************************

        """
    }

    /// Writes `credentials` to a new file at `path`, mode 0600, and returns `path`.
    /// - Throws: `HarnessFailure.unexpected` when the file cannot be made.
    @discardableResult
    public func writeCredentials(to path: String) throws -> String {
        guard FileManager.default.createFile(atPath: path, contents: Data(credentials.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw HarnessFailure.unexpected("could not write the credentials of \(name) to \(path)")
        }
        return path
    }
}
