import Foundation

/// A certificate authority made for one test by Debian's `openssl`
/// command, and a server certificate it signed for `127.0.0.1`,
/// `localhost` and `cards.example.com`: what a TLS client must trust
/// (`caCertificate`) and what a TLS server presents (`serverCertificate`,
/// `serverKey`), as PEM files in `directory`. ECDSA P-256, valid ten years
/// from the machine's real clock (TLS clients check that clock, not `--now`).
/// `makeClientCertificate` signs client certificates for mutual TLS.
public struct TestCertificateAuthority: Sendable {
    public let caCertificate: String
    public let serverCertificate: String
    public let serverKey: String
    private let caKey: String

    /// Makes the authority and the server's certificate in `directory`.
    /// - Throws: `HarnessFailure.failed` with openssl's message.
    public init(in directory: String) throws {
        caCertificate = directory + "/ca.pem"
        serverCertificate = directory + "/server.pem"
        serverKey = directory + "/server.key"
        caKey = directory + "/ca.key"
        let request = directory + "/server.csr", extensions = directory + "/server.ext"
        try "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:cards.example.com\nextendedKeyUsage=serverAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", caKey],
            ["req", "-x509", "-new", "-key", caKey, "-sha256", "-days", "3650", "-subj", "/CN=ShareLog test CA", "-out", caCertificate],
            ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", serverKey],
            ["req", "-new", "-key", serverKey, "-subj", "/CN=127.0.0.1", "-out", request],
            ["x509", "-req", "-in", request, "-CA", caCertificate, "-CAkey", caKey, "-CAcreateserial", "-days", "3650", "-sha256",
             "-extfile", extensions, "-out", serverCertificate],
        ]
        try Self.openssl(steps)
    }

    /// Makes a key and a client certificate (`extendedKeyUsage=clientAuth`)
    /// for `name`, signed by this authority, as `directory/name.pem` and
    /// `directory/name.key`.
    /// - Throws: `HarnessFailure.failed` with openssl's message.
    public func makeClientCertificate(named name: String, in directory: String) throws -> (certificate: String, key: String) {
        let certificate = directory + "/\(name).pem", key = directory + "/\(name).key"
        let request = directory + "/\(name).csr", extensions = directory + "/\(name).ext"
        try "extendedKeyUsage=clientAuth\n".write(toFile: extensions, atomically: true, encoding: .utf8)
        try Self.openssl([
            ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key],
            ["req", "-new", "-key", key, "-subj", "/CN=\(name)", "-out", request],
            ["x509", "-req", "-in", request, "-CA", caCertificate, "-CAkey", caKey, "-CAcreateserial", "-days", "3650", "-sha256",
             "-extfile", extensions, "-out", certificate],
        ])
        return (certificate, key)
    }

    /// Runs `openssl` with each argument list in turn.
    private static func openssl(_ steps: [[String]]) throws {
        for step in steps {
            let outcome = CLIResult(try Subprocess.run("/usr/bin/openssl", step, timeout: .seconds(60)))
            guard outcome.succeeded else { throw HarnessFailure.failed("openssl \(step.joined(separator: " "))", status: outcome.status, log: outcome.error) }
        }
    }
}
