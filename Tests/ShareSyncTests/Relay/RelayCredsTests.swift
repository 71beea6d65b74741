import Foundation
import ShareLog
import TestSupport
import Testing
import TestTraits

/// `sharelog relay --creds F` through a real `nats-server` in operator mode
/// (decentralized JWT authentication) with JetStream on: a share one
/// replica makes reaches another replica through it, each relay connected
/// as its own user of one account; a user whose account the server does
/// not know, a `.creds` file whose seed is not the key its JWT names, and a
/// relay without credentials each fail at start with exit 1 (docs/CLI.md),
/// the server's reason ("Authorization Violation"), and no store.
///
/// `nsc` is not installed here, so the operator, its system account, the
/// account and the users are made by TestSupport's `NatsOperator`,
/// `NatsAccount` and `NatsUser`: Ed25519 keys and signatures from Debian's
/// python3-cryptography, NKey and JWT encodings and the claims written by
/// the tests' own code (Tests/TestSupport/Resources/nats_credentials.py).
/// What the server says about its connections and streams (/connz, /jsz,
/// its log) is the oracle, not the relay.
@Suite(.serialized, .hangDeadline) struct RelayCredsTests {
    final class Fixture {
        let directory = TemporaryDirectory("relaycreds")
        let trusted: NatsOperator
        /// The account the server knows, with JetStream on.
        let account: NatsAccount
        let cluster: NatsCluster
        let keyPath: String

        init() throws {
            trusted = try NatsOperator(named: "sharelog-test-operator")
            account = try trusted.makeAccount(named: "sharelog")
            let mode = NatsOperatorMode(trusting: trusted, accounts: [account])
            cluster = try NatsCluster(size: 1, in: directory.appending("nats"), operatorMode: mode)
            keyPath = directory.appending("stream.key")
            try RelayReplica.makeStreamKey(at: keyPath)
        }

        deinit { cluster.shutdown() }

        /// Writes `user`'s `.creds` file into the test's directory; returns its path.
        func credentialsFile(_ user: NatsUser) throws -> String {
            try user.writeCredentials(to: directory.appending("\(user.name).creds"))
        }

        /// Runs a relay to its end on a store that does not exist yet, with
        /// `options`; it must fail before it makes the store.
        func refusedRelay(_ options: [String]) throws -> (result: CLIResult, storeMade: Bool) {
            let cli = SharelogCLI(store: directory.appending("refused"), now: RelayReplica.nowText)
            let result = try cli.run(arguments: ["relay", "--nats", cluster.serverURLList, "--stream-key", keyPath, "--replicas", "1"] + options)
            return (result, FileManager.default.fileExists(atPath: cli.store))
        }

        /// The server's monitoring endpoint `path`, as JSON.
        func monitor(_ path: String) throws -> [String: Any] {
            guard let reply = try LoopbackHTTP.get(port: cluster.ports[0].monitor, path: path).jsonObject else {
                throw HarnessFailure.unexpected("nats-server's \(path) did not answer JSON")
            }
            return reply
        }

        /// Waits until the server's log holds a line with every one of
        /// `parts`: the server's own account of a refusal.
        func waitUntilServerLogs(_ parts: String...) throws {
            do {
                try Deadline.block(until: "nats-server logs \(parts)", timeout: .seconds(10), every: .milliseconds(20)) {
                    cluster.logs(0).split(separator: "\n").contains { line in parts.allSatisfy { line.contains($0) } }
                }
            } catch let error as DeadlineExceeded {
                throw HarnessFailure.unexpected("\(error); its log:\n\(cluster.logs(0))")
            }
        }

        /// Checks what every refusal has in common: exit 1, the server's
        /// reason and what to check, no trace of `secret`, no store.
        func expectRefused(_ refused: (result: CLIResult, storeMade: Bool), secret: String?, sourceLocation: SourceLocation = #_sourceLocation) {
            let error = refused.result.error
            #expect(refused.result.status == 1, "\(error)", sourceLocation: sourceLocation)
            #expect(error.contains("connect to nats://127.0.0.1:\(cluster.ports[0].client)"), "\(error)", sourceLocation: sourceLocation)
            #expect(error.contains("Authorization Violation"), "\(error)", sourceLocation: sourceLocation)
            #expect(error.contains("--creds"), "\(error)", sourceLocation: sourceLocation)
            if let secret { #expect(!error.contains(secret), "the message shows the seed", sourceLocation: sourceLocation) }
            #expect(!refused.storeMade, sourceLocation: sourceLocation)
        }
    }

    @Test func aShareOneReplicaMakesReachesAnotherThroughTheOperatorModeServer() throws {
        let fixture = try Fixture()
        let users = try ["relay-a", "relay-b"].map { try fixture.account.makeUser(named: $0) }
        let observer = StreamObserver(cluster: fixture.cluster, stream: "SHARELOG")
        let replicas = try ["a", "b"].map { try RelayReplica($0, in: fixture.directory.path, streamKey: fixture.keyPath) }
        let relays = try zip(replicas, users).map { replica, user in
            try RelayProcess(
                replica.cli, nats: fixture.cluster.serverURLList, streamKey: replica.streamKey,
                extra: ["--replicas", "1", "--creds", fixture.credentialsFile(user)])
        }
        // The server says each relay is connected as its own user, in the account.
        let connections = try fixture.monitor("/connz?auth=true")["connections"] as? [[String: Any]] ?? []
        let relayConnections = connections.filter { $0["name"] as? String == "sharelog-relay" }
        #expect(Set(relayConnections.compactMap { $0["authorized_user"] as? String }) == Set(users.map(\.key.publicKey)), "\(connections)")
        #expect(relayConnections.allSatisfy { $0["account"] as? String == fixture.account.key.publicKey }, "\(connections)")

        let expected = try replicas[0].create(3)
        try replicas[1].waitUntilHolds(expected, timeout: .seconds(60))
        try observer.waitUntilEveryServerHolds(3)
        // The stream is the account's: the server lists it under no other.
        let accounts = try fixture.monitor("/jsz?streams=true")["account_details"] as? [[String: Any]] ?? []
        let holders = accounts.filter { ($0["stream_detail"] as? [[String: Any]] ?? []).contains { $0["name"] as? String == "SHARELOG" } }
        #expect(holders.map { $0["id"] as? String } == [fixture.account.key.publicKey], "\(accounts)")
        let totals = try relays.map { try $0.stop() }
        #expect(totals.map(\.status) == [0, 0])
        #expect((totals[0].json["counts"] as? [String: Any])?["published"] as? Int == 3)
        #expect((totals[1].json["counts"] as? [String: Any])?["applied"] as? Int == 3)
    }

    @Test func aUserOfAnAccountTheServerDoesNotKnowIsRefused() throws {
        let fixture = try Fixture()
        // Signed by the trusted operator, but not in the server's resolver.
        let stranger = try fixture.trusted.makeAccount(named: "stranger").makeUser(named: "stranger-user")
        let refused = try fixture.refusedRelay(["--creds", fixture.credentialsFile(stranger)])
        fixture.expectRefused(refused, secret: stranger.key.seed)
        try fixture.waitUntilServerLogs("Account fetch failed", "account missing")
        try fixture.waitUntilServerLogs("sharelog-relay", "authentication error")
    }

    @Test func aCredentialsFileWhoseSeedIsNotItsJWTsKeyIsRefused() throws {
        let fixture = try Fixture()
        let user = try fixture.account.makeUser(named: "relay")
        let other = try fixture.account.makeUser(named: "other")
        // The JWT names `user`'s key; the seed that signs the server's nonce is `other`'s.
        let tampered = NatsUser(name: "tampered", key: other.key, jwt: user.jwt)
        let refused = try fixture.refusedRelay(["--creds", fixture.credentialsFile(tampered)])
        fixture.expectRefused(refused, secret: other.key.seed)
        try fixture.waitUntilServerLogs("sharelog-relay", "authentication error")
    }

    @Test func aRelayWithoutCredentialsIsRefusedByTheOperatorModeServer() throws {
        let fixture = try Fixture()
        let refused = try fixture.refusedRelay([])
        fixture.expectRefused(refused, secret: nil)
        try fixture.waitUntilServerLogs("sharelog-relay", "authentication error")
    }
}
