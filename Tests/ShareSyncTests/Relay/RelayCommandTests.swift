import Foundation
import Testing
import TestSupport
import TestTraits

/// `sharelog relay` and `sharelog relay-key` refuse every bad command line,
/// key file and unreachable cluster with a clear message and their
/// documented exit code (docs/CLI.md), and leave no store behind. No NATS
/// server runs here: each refusal comes before the relay could reach one,
/// or from the connection that found none.
@Suite(.hangDeadline) struct RelayCommandTests {
    /// A directory with a good stream key, and the store path the relay
    /// would create: nothing must appear there.
    final class Fixture {
        let directory = TemporaryDirectory("relaycommand")
        let cli: SharelogCLI
        let keyPath: String
        var storePath: String { cli.store }

        init() throws {
            cli = SharelogCLI(store: directory.appending("store"), now: RelayReplica.nowText)
            keyPath = directory.appending("stream.key")
            try RelayReplica.makeStreamKey(at: keyPath)
        }

        var storeExists: Bool { FileManager.default.fileExists(atPath: storePath) }

        func relay(_ arguments: String...) throws -> CLIResult {
            try cli.run(arguments: ["relay"] + arguments)
        }
    }

    /// Loopback port 1: nothing listens there, so a connection is refused at once.
    static let nobody = "nats://127.0.0.1:1"

    @Test(arguments: [
        (["--stream-key", "K"], "give --nats"),
        (["--nats", nobody], "give --stream-key"),
        (["--nats", nobody, "--stream-key", "K", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
        (["--nats", nobody, "--stream-key", "K", "--bogus"], "--bogus"),
    ])
    func aWrongCommandLineIsAUsageError(_ arguments: [String], _ message: String) throws {
        let fixture = try Fixture()
        let result = try fixture.cli.run(arguments: ["relay"] + arguments.map { $0 == "K" ? fixture.keyPath : $0 })
        #expect(result.status == 2)
        #expect(result.error.contains(message), "\(result.error)")
        #expect(!fixture.storeExists)
    }

    @Test(arguments: [
        (["--stream", "two.tokens"], "--stream 'two.tokens' must be 1 to 64 letters"),
        (["--subject-prefix", "shares.>"], "--subject-prefix 'shares.>' must be 1 to 64 letters"),
        (["--replicas", "7"], "--replicas must be a whole number from 1 to 5, not '7'"),
        (["--snapshot-from", "ftp:somewhere"], "--snapshot-from:"),
    ])
    func aBadValueIsInvalidInput(_ extra: [String], _ message: String) throws {
        let fixture = try Fixture()
        let result = try fixture.cli.run(arguments: ["relay", "--nats", Self.nobody, "--stream-key", fixture.keyPath] + extra)
        #expect(result.status == 5)
        #expect(result.error.contains(message), "\(result.error)")
        #expect(!fixture.storeExists)
    }

    @Test func aStreamKeyOthersMayReadIsRefused() throws {
        let fixture = try Fixture()
        #expect(chmod(fixture.keyPath, 0o644) == 0)
        let result = try fixture.relay("--nats", Self.nobody, "--stream-key", fixture.keyPath)
        #expect(result.status == 5)
        #expect(result.error.contains("chmod 600"), "\(result.error)")
        #expect(!fixture.storeExists)
    }

    @Test func aFileThatIsNoStreamKeyIsRefused() throws {
        let fixture = try Fixture()
        let other = fixture.directory.appending("not-a-key")
        #expect(FileManager.default.createFile(atPath: other, contents: Data("hello\n".utf8), attributes: [.posixPermissions: 0o600]))
        let missing = try fixture.relay("--nats", Self.nobody, "--stream-key", fixture.directory.appending("absent"))
        let garbage = try fixture.relay("--nats", Self.nobody, "--stream-key", other)
        #expect(missing.status == 5)
        #expect(missing.error.contains("--stream-key"), "\(missing.error)")
        #expect(garbage.status == 5)
        #expect(garbage.error.contains("--stream-key"), "\(garbage.error)")
        #expect(!fixture.storeExists)
    }

    @Test func aClusterThatCannotBeReachedFailsAndCreatesNoStore() throws {
        let fixture = try Fixture()
        let result = try fixture.relay("--nats", Self.nobody, "--stream-key", fixture.keyPath)
        #expect(result.status == 1)
        #expect(result.error.contains("connect to \(Self.nobody)"), "\(result.error)")
        #expect(!fixture.storeExists)
    }

    @Test func relayKeyWritesAPrivateKeyOnceAndNeverOverwritesIt() throws {
        let fixture = try Fixture()
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.keyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.keyPath))
        #expect(before.last == UInt8(ascii: "\n"))
        #expect(before.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") }, "one line")

        let again = try fixture.cli.run("relay-key", fixture.keyPath)
        #expect(again.status == 1)
        #expect(again.error.contains(fixture.keyPath), "\(again.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.keyPath)) == before)
    }
}
