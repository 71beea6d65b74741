import Foundation
import Glibc
import ShareLog
import ShareSync
import Synchronization
import Testing
import TestSupport
import TestTraits

/// `sharelog relay` on SIGHUP (docs/OPERATIONS.md "Reloading on SIGHUP"),
/// against one real `nats-server`: it reads the `--key-file` of
/// `--snapshot-from` again, keeps the key it had when the file cannot be
/// used, says what it did, and relays on either way; and the key a
/// `StreamRelay` was given last is the one its snapshot pull presents to
/// a peer whose key was replaced.
@Suite(.serialized, .hangDeadline, .ownThread) struct RelayKeyReloadTests {
    /// Makes a sync key file at `path` with `sharelog keygen`.
    static func keygen(_ path: String) throws {
        _ = try SharelogCLI(store: path + ".unused", now: RelayReplica.nowText).run("keygen", path).checked("sharelog keygen")
    }

    /// Sends SIGHUP to `relay` and returns the line it logs about it.
    static func reload(_ relay: RelayProcess) throws -> String {
        let before = relay.lines.count
        kill(relay.pid, SIGHUP)
        var found: String?
        try Deadline.block(until: "the relay logs the SIGHUP; it logged \(relay.lines)", timeout: .seconds(30), every: .milliseconds(5)) {
            found = relay.lines.dropFirst(before).first { $0.hasPrefix("sharelog: signal SIGHUP:") }
            return found != nil
        }
        return found!
    }

    @Test func aRelayReloadsItsSyncKeyOnSIGHUPAndRelaysOn() throws {
        let fixture = try RelayFixture("relayreload")
        let main = try fixture.replica("main")
        let other = try fixture.replica("other")
        let keyFile = fixture.directory.appending("snapshot.key")
        try Self.keygen(keyFile)
        // Nothing listens at port 1: the pull would be tried only if the
        // stream lost messages, which it does not here.
        let mainRelay = try main.startRelay(fixture.cluster, extra: ["--replicas", "1", "--snapshot-from", "tcp:127.0.0.1:1", "--key-file", keyFile])
        let otherRelay = try other.startRelay(fixture.cluster, extra: ["--replicas", "1"])

        let next = keyFile + ".next"
        try Self.keygen(next)
        #expect(rename(next, keyFile) == 0)
        #expect(try Self.reload(mainRelay) == "sharelog: signal SIGHUP: reloaded --key-file \(keyFile) for pulls from --snapshot-from; "
            + "--stream-key and the NATS credentials and TLS files are read only at start")

        #expect(FileManager.default.createFile(atPath: keyFile, contents: Data("no key\n".utf8), attributes: [.posixPermissions: 0o600]))
        let refused = try Self.reload(mainRelay)
        #expect(refused.hasPrefix("sharelog: signal SIGHUP: could not reload --key-file, keeping the key it had: the key file \(keyFile) is not a sync key"),
                "\(refused)")
        #expect(try Self.reload(otherRelay) == "sharelog: signal SIGHUP: nothing to reload: no --key-file; "
            + "--stream-key and the NATS credentials and TLS files are read only at start")

        // Both relay on: what each makes after the signals reaches the other.
        var expected = try main.create(10)
        expected.merge(try other.create(10)) { first, _ in first }
        try main.waitUntilHolds(expected)
        try other.waitUntilHolds(expected)
        #expect(try mainRelay.stop().status == 0)
        #expect(try otherRelay.stop().status == 0)
    }

    @Test func theSnapshotPullPresentsTheKeyGivenLast() throws {
        let fixture = try RelayFixture("relaysnapshotkey")
        let main = try fixture.replica("main")
        let mainRelay = try main.startRelay(fixture.cluster, extra: ["--replicas", "1", "--metrics", "tcp:127.0.0.1:0"])
        var expected = try main.create(30)
        try fixture.observer.waitUntilEveryServerHolds(30)
        // Main's relay reads its own 30 back before they go: a relay that
        // finds messages gone that it never read stops for a snapshot.
        let metrics = try #require(PrometheusScrape.address(in: mainRelay.lines))
        try Deadline.block(until: "main's relay has read the stream through sequence 30") {
            try PrometheusScrape(metrics).value("sharelog_relay_stream_position") == 30
        }
        // The stream loses its first 30 messages, as MaxAge would drop
        // them: a replica that starts now must pull them from a peer.
        try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs)).purgeStream(named: "SHARELOG")
        expected.merge(try main.create(10, from: 30)) { first, _ in first }
        try fixture.observer.waitUntilEveryServerHolds(10)

        // The peer serves with key B; the relay was made with key A, then given B.
        let (keyA, keyB) = (fixture.directory.appending("a.key"), fixture.directory.appending("b.key"))
        try Self.keygen(keyA)
        try Self.keygen(keyB)
        let server = try ServeProcess(main.cli, listen: "tcp:127.0.0.1:0", extra: ["--key-file", keyB])
        defer { _ = try? server.stop() }
        let away = try fixture.replica("away")
        var request = SyncRequest(endpoint: try Endpoint(parsing: server.endpoint))
        request.key = try SyncKey.load(from: keyA)
        var options = StreamRelay.Options()
        options.stream.replicas = 1
        options.clock = FixedClock(RelayReplica.now)
        options.snapshotFrom = request
        let relay = StreamRelay(
            store: away.store, connection: try JetStreamConnection(JetStreamConnection.Options(servers: fixture.cluster.clientURLs)),
            keyring: try StreamKeyring(path: away.streamKey, now: RelayReplica.now), options: options)
        relay.replaceSnapshotKey(with: try SyncKey.load(from: keyB))

        let context = SessionContext()
        let lines = Mutex<[String]>([])
        let ended = Mutex<Result<Void, RelayFailure>?>(nil)
        let thread = Thread {
            let result = Result { () throws(RelayFailure) in try relay.run(context: context) { record in lines.withLock { $0.append(record.message) } } }
            ended.withLock { $0 = result }
        }
        thread.start()
        defer {
            context.stop()
            try? Deadline.block(until: "the away relay's thread ends", timeout: .seconds(30), every: .milliseconds(5)) { ended.withLock { $0 != nil } }
        }
        try Deadline.block(until: "the away relay catches up, or ends", timeout: .seconds(60), every: .milliseconds(5)) {
            lines.withLock { $0.contains { $0.hasPrefix("caught up with stream") } } || ended.withLock { $0 != nil }
        }
        if case .failure(let error) = ended.withLock({ $0 }) { throw HarnessFailure.unexpected("the away relay failed: \(error)") }
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("pulled 40 events (40 new) from the peer") }, "\(lines.withLock { $0 })")
        try away.waitUntilHolds(expected)
        let stopped = try mainRelay.stop()
        #expect(stopped.status == 0, "\(stopped.error)")
    }
}
