import Foundation
import ShareLog
import TestSupport
import Testing
import TestTraits

/// `sharelog relay --tls-ca --tls-cert --tls-key` through a real
/// `nats-server` that takes clients only over TLS, with a client
/// certificate its CA signed (mutual TLS), and as a user with a password:
/// a share one replica makes reaches another replica through it; a server
/// certificate from another authority, no client certificate, a wrong
/// password and a credentials file that is not there each fail at start
/// with exit 1 (docs/CLI.md), a message that says what failed, and no store.
///
/// The server here authenticates a user and password given in the URL
/// (`tls://user:password@host:port`); `--creds` is tested here only as far
/// as a missing file. `RelayCredsTests` tests `--creds` for real, against a
/// server in operator mode (decentralized JWT authentication), with an
/// operator, account and users its test support makes without `nsc`.
@Suite(.serialized, .hangDeadline) struct RelayTLSTests {
    static let user = "relay"
    static let password = "s3cret-Pa55"

    final class Fixture {
        let directory = TemporaryDirectory("relaytls")
        let authority: TestCertificateAuthority
        let client: (certificate: String, key: String)
        let cluster: NatsCluster
        let keyPath: String

        init() throws {
            let certificates = directory.appending("certificates")
            try FileManager.default.createDirectory(atPath: certificates, withIntermediateDirectories: true)
            authority = try TestCertificateAuthority(in: certificates)
            client = try authority.makeClientCertificate(named: "relay-client", in: certificates)
            let security = NatsClientSecurity(authority: authority, user: RelayTLSTests.user, password: RelayTLSTests.password)
            cluster = try NatsCluster(size: 1, in: directory.appending("nats"), security: security)
            keyPath = directory.appending("stream.key")
            try RelayReplica.makeStreamKey(at: keyPath)
        }

        deinit { cluster.shutdown() }

        /// The TLS options of a relay that has everything right.
        var tls: [String] { ["--tls-ca", authority.caCertificate, "--tls-cert", client.certificate, "--tls-key", client.key] }

        /// Runs a relay to its end on a store that does not exist yet, with
        /// `nats` and `options`; it must fail before it makes the store.
        func refusedRelay(nats: String, _ options: [String]) throws -> (result: CLIResult, storeMade: Bool) {
            let cli = SharelogCLI(store: directory.appending("refused"), now: RelayReplica.nowText)
            let result = try cli.run(arguments: ["relay", "--nats", nats, "--stream-key", keyPath, "--replicas", "1"] + options)
            return (result, FileManager.default.fileExists(atPath: cli.store))
        }
    }

    @Test func aShareOneReplicaMakesReachesAnotherThroughTheTLSAuthenticatedServer() throws {
        let fixture = try Fixture()
        let observer = StreamObserver(cluster: fixture.cluster, stream: "SHARELOG")
        let replicas = try ["a", "b"].map { try RelayReplica($0, in: fixture.directory.path, streamKey: fixture.keyPath) }
        let relays = try replicas.map {
            try RelayProcess($0.cli, nats: fixture.cluster.serverURLList, streamKey: $0.streamKey, extra: ["--replicas", "1"] + fixture.tls)
        }
        let expected = try replicas[0].create(3)
        try replicas[1].waitUntilHolds(expected, timeout: .seconds(60))
        try observer.waitUntilEveryServerHolds(3)
        let totals = try relays.map { try $0.stop() }
        #expect(totals.map(\.status) == [0, 0])
        #expect((totals[0].json["counts"] as? [String: Any])?["published"] as? Int == 3)
        #expect((totals[1].json["counts"] as? [String: Any])?["applied"] as? Int == 3)
    }

    @Test func aServerCertificateFromAnotherAuthorityIsRefused() throws {
        let fixture = try Fixture()
        let elsewhere = fixture.directory.appending("other-ca")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let other = try TestCertificateAuthority(in: elsewhere)
        let refused = try fixture.refusedRelay(
            nats: fixture.cluster.serverURLList,
            ["--tls-ca", other.caCertificate, "--tls-cert", fixture.client.certificate, "--tls-key", fixture.client.key])
        #expect(refused.result.status == 1)
        #expect(refused.result.error.contains("SSL handshake error"), "\(refused.result.error)")
        #expect(refused.result.error.contains("unable to get local issuer certificate"), "\(refused.result.error)")
        #expect(!refused.storeMade)
    }

    @Test func aRelayWithoutAClientCertificateIsRefused() throws {
        let fixture = try Fixture()
        let refused = try fixture.refusedRelay(nats: fixture.cluster.serverURLList, ["--tls-ca", fixture.authority.caCertificate])
        #expect(refused.result.status == 1)
        // The server closes the connection without a word: the relay says
        // what to check.
        #expect(refused.result.error.contains("connect to tls://"), "\(refused.result.error)")
        #expect(refused.result.error.contains("--tls-cert and --tls-key"), "\(refused.result.error)")
        #expect(!refused.storeMade)
    }

    @Test func aWrongPasswordIsRefusedAndNotShown() throws {
        let fixture = try Fixture()
        let url = fixture.cluster.clientURLs(user: Self.user, password: "wrong-password").joined(separator: ",")
        let refused = try fixture.refusedRelay(nats: url, fixture.tls)
        #expect(refused.result.status == 1)
        #expect(refused.result.error.contains("Authorization Violation"), "\(refused.result.error)")
        #expect(!refused.result.error.contains("wrong-password"), "\(refused.result.error)")
        #expect(!refused.storeMade)
    }

    @Test func aCredentialsFileThatIsNotThereIsRefused() throws {
        let fixture = try Fixture()
        let missing = fixture.directory.appending("absent.creds")
        let refused = try fixture.refusedRelay(nats: fixture.cluster.serverURLList, fixture.tls + ["--creds", missing])
        #expect(refused.result.status == 1)
        #expect(refused.result.error.contains(missing), "\(refused.result.error)")
        #expect(!refused.storeMade)
    }
}
