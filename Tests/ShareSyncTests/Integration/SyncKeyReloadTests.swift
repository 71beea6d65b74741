import Foundation
import Glibc
import Testing
import TestSupport
import TestTraits

/// `sharelog serve --key-file F` on SIGHUP (docs/OPERATIONS.md "Reloading
/// on SIGHUP"), with real processes over TCP: a new key in F is asked of
/// every connection after the reload, while a `sync --follow` session
/// that began under the old key goes on and still brings new shares; a
/// file that holds no usable key changes nothing, and the server keeps
/// serving with the key it had.
@Suite(.serialized, .hangDeadline, .ownThread) struct SyncKeyReloadTests {
    static let now = "2026-12-01T13:00:00Z"

    /// A directory with a main store, two key files made by `sharelog
    /// keygen` (`a.key`, `b.key`) and the file the server reads
    /// (`serve.key`), which holds key A to begin with.
    final class Bench {
        let directory = TemporaryDirectory("keyreload")
        let main: SharelogCLI
        let keyA: String, keyB: String, served: String

        init() throws {
            main = SharelogCLI(store: directory.appending("main"), now: SyncKeyReloadTests.now)
            _ = try main.run("init").checked("sharelog init")
            keyA = directory.appending("a.key")
            keyB = directory.appending("b.key")
            served = directory.appending("serve.key")
            _ = try main.run("keygen", keyA).checked("sharelog keygen a.key")
            _ = try main.run("keygen", keyB).checked("sharelog keygen b.key")
            try install(Data(contentsOf: URL(fileURLWithPath: keyA)))
        }

        /// Puts `contents` in `serve.key` as an operator would: a new file
        /// of mode `mode`, renamed over the old one.
        func install(_ contents: Data, mode: Int = 0o600) throws {
            let next = served + ".new"
            guard FileManager.default.createFile(atPath: next, contents: contents, attributes: [.posixPermissions: mode]) else {
                throw HarnessFailure.unexpected("could not write \(next)")
            }
            guard rename(next, served) == 0 else { throw HarnessFailure.unexpected("rename to \(served): errno \(errno)") }
        }

        /// A new store at `label` that syncs once from `server` with the key in `keyFile`.
        func pull(_ label: String, from server: ServeProcess, keyFile: String) throws -> (cli: SharelogCLI, result: CLIResult) {
            let cli = SharelogCLI(store: directory.appending(label), now: SyncKeyReloadTests.now)
            return (cli, try cli.run("sync", "--connect", server.endpoint, "--pull", "--key-file", keyFile))
        }

        /// `share create -` of `card` on the main store; the id it printed.
        func share(_ card: [UInt8]) throws -> String {
            let created = try main.run("share", "create", "-", "--json", input: card).checked("sharelog share create")
            return try #require(created.json["id"] as? String, "\(created.text)")
        }
    }

    /// Sends SIGHUP to `server` and waits for the line that begins with
    /// `prefix`, the reload's outcome; returns it.
    static func reload(_ server: ServeProcess, expecting prefix: String) throws -> String {
        let before = server.lines.count
        kill(server.pid, SIGHUP)
        var found: String?
        try Deadline.block(until: "the server logs '\(prefix)…' after SIGHUP; it logged: \(server.lines)", timeout: .seconds(30), every: .milliseconds(5)) {
            server.pump()
            found = server.lines.dropFirst(before).first { $0.hasPrefix(prefix) }
            return found != nil
        }
        return found!
    }

    /// Polls `share get ID --vcard` on `cli` until it answers `card`;
    /// throws when `follower` has ended, or at the deadline.
    static func waitForCard(_ card: [UInt8], of id: String, on cli: SharelogCLI, broughtBy follower: Subprocess) throws {
        try Deadline.block(until: "share \(id) reaches \(cli.store)", timeout: .seconds(60), every: .milliseconds(20)) {
            _ = follower.readOutput(waitingAtMost: 0)
            guard follower.isRunning else {
                throw HarnessFailure.endedEarly("sync --follow", before: "share \(id) came", log: String(decoding: follower.errorOutput, as: UTF8.self))
            }
            return try cli.run("share", "get", id, "--vcard").output == card
        }
    }

    @Test func aNewKeyIsAskedOfNewConnectionsWhileAFollowerFromBeforeGoesOn() throws {
        let bench = try Bench()
        let before = TestCard.make("Before", 1)
        let beforeID = try bench.share(before)
        let server = try ServeProcess(bench.main, listen: "tcp:127.0.0.1:0", extra: ["--key-file", bench.served, "--peer-timeout", "120"])
        defer { _ = try? server.stop() }

        let followerCLI = SharelogCLI(store: bench.directory.appending("follower"), now: Self.now)
        let follower = try followerCLI.start([
            "sync", "--connect", server.endpoint, "--follow", "--key-file", bench.keyA, "--heartbeat", "1", "--peer-timeout", "120",
        ])
        defer { follower.kill() }
        try Self.waitForCard(before, of: beforeID, on: followerCLI, broughtBy: follower)

        try bench.install(Data(contentsOf: URL(fileURLWithPath: bench.keyB)))
        let line = try Self.reload(server, expecting: "sharelog: signal SIGHUP:")
        #expect(line == "sharelog: signal SIGHUP: reloaded --key-file \(bench.served): new connections must hold its key; sessions already running go on")

        let withB = try bench.pull("with-b", from: server, keyFile: bench.keyB)
        #expect(withB.result.status == 0, "\(withB.result.error)")
        #expect(try withB.cli.run("share", "get", beforeID, "--vcard").output == before, "a client with the new key pulls the store")

        let withA = try bench.pull("with-a", from: server, keyFile: bench.keyA)
        #expect(withA.result.status == 1)
        #expect(withA.result.error.hasPrefix("sharelog: sync failed: TLS handshake failed: the peer does not hold this key"), "\(withA.result.error)")
        #expect(!FileManager.default.fileExists(atPath: withA.cli.store), "a refused sync leaves no store")
        try server.waitForClosedLines(1)
        #expect(server.closedLines.count == 1 && server.closedLines[0].contains("does not hold this key"), "\(server.closedLines)")

        // The follower holds only key A, which no new connection may use:
        // a share made now reaches it only through its session from before.
        let after = TestCard.make("After", 2)
        let afterID = try bench.share(after)
        try Self.waitForCard(after, of: afterID, on: followerCLI, broughtBy: follower)
        server.pump()
        #expect(server.closedLines.count == 1, "the follower never had to connect again: \(server.closedLines)")

        kill(follower.pid, SIGINT)
        let ended = try follower.finish(timeout: .seconds(20))
        #expect(ended.status == 0 && !ended.signaled, "\(String(decoding: ended.error, as: UTF8.self))")
        let stopped = try server.stop()
        #expect(stopped.status == 0, "\(stopped.error)")
        #expect(stopped.error.split(separator: "\n").filter { $0.contains(": ended well;") }.count == 2, "the pull with key B and the follower's one session: \(stopped.error)")
    }

    @Test func aKeyFileThatCannotBeUsedChangesNothing() throws {
        let bench = try Bench()
        let card = TestCard.make("Kept", 1)
        let id = try bench.share(card)
        let server = try ServeProcess(bench.main, listen: "tcp:127.0.0.1:0", extra: ["--key-file", bench.served])
        defer { _ = try? server.stop() }

        try bench.install(Data("this is no key\n".utf8))
        let garbage = try Self.reload(server, expecting: "sharelog: signal SIGHUP:")
        #expect(garbage == "sharelog: signal SIGHUP: could not reload --key-file, still serving with the key it had: the key file \(bench.served) "
            + "is not a sync key: it holds 14 characters instead of 64; a key file holds 64 hexadecimal characters, as 'openssl rand -hex 32' prints them")

        try bench.install(Data(contentsOf: URL(fileURLWithPath: bench.keyB)), mode: 0o644)
        let exposed = try Self.reload(server, expecting: "sharelog: signal SIGHUP:")
        #expect(exposed.hasPrefix("sharelog: signal SIGHUP: could not reload --key-file, still serving with the key it had: "), "\(exposed)")
        #expect(exposed.contains("chmod 600 \(bench.served)"), "\(exposed)")

        let withA = try bench.pull("with-a", from: server, keyFile: bench.keyA)
        #expect(withA.result.status == 0, "the key it had still opens the server: \(withA.result.error)")
        #expect(try withA.cli.run("share", "get", id, "--vcard").output == card)
        let withB = try bench.pull("with-b", from: server, keyFile: bench.keyB)
        #expect(withB.result.status == 1, "the key of the file it refused does not: \(withB.result.error)")
        #expect(withB.result.error.contains("the peer does not hold this key"), "\(withB.result.error)")
        #expect(try server.stop().status == 0)
    }
}
