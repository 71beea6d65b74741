import Foundation

/// Tests/TestSupport/Resources/nats_credentials.py, run by Debian's
/// /usr/bin/python3 with python3-cryptography: the NKeys and signed JWTs of
/// NATS decentralized authentication, for tests on a machine without
/// `nsc`. The script does the Ed25519 through the library and only the
/// encodings itself (its docstring lists them); what the JWTs claim is
/// decided here in Swift, by `NatsOperator`, `NatsAccount` and `NatsUser`.
public enum NatsCredentialsScript {
    public static let python = "/usr/bin/python3"
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Resources/nats_credentials.py").path

    /// One fresh key pair of each of `kinds`, in order.
    /// - Throws: `HarnessFailure.failed` with the script's message (python3
    ///   or python3-cryptography missing, say), `.unexpected` when its
    ///   output is not one seed and public key per kind.
    public static func makeKeys(_ kinds: [NatsNKey.Kind]) throws -> [NatsNKey] {
        let lines = try run(["keys"] + kinds.map(\.rawValue)).split(separator: "\n")
        guard lines.count == kinds.count else { throw HarnessFailure.unexpected("nats_credentials.py keys printed \(lines) for \(kinds)") }
        return try zip(kinds, lines).map { kind, line in
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count == 2, parts[0].hasPrefix("S"), parts[1].hasPrefix(kind.rawValue.prefix(1).uppercased()) else {
                throw HarnessFailure.unexpected("nats_credentials.py keys printed \(line) for a key of kind \(kind)")
            }
            return NatsNKey(kind: kind, seed: parts[0], publicKey: parts[1])
        }
    }

    /// The JWT of `claims` (a JSON object without `iss`, `iat` and `jti`,
    /// which the script sets), signed by `issuer`'s seed.
    /// - Throws: `HarnessFailure.failed` with the script's message.
    public static func sign(_ claims: [String: Any], by issuer: NatsNKey) throws -> String {
        let json = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let jwt = try run(["sign", issuer.seed], input: [UInt8](json)).trimmingCharacters(in: .whitespacesAndNewlines)
        guard jwt.split(separator: ".").count == 3 else { throw HarnessFailure.unexpected("nats_credentials.py sign printed \(jwt)") }
        return jwt
    }

    /// Runs the script with `arguments` and returns what it printed.
    private static func run(_ arguments: [String], input: [UInt8] = []) throws -> String {
        let outcome = CLIResult(try Subprocess.run(python, [script] + arguments, input: input, timeout: .seconds(60)))
        let command = "python3 nats_credentials.py \(arguments.first ?? "")"
        guard outcome.succeeded else { throw HarnessFailure.failed(command, status: outcome.status, log: outcome.error) }
        return outcome.text
    }
}
