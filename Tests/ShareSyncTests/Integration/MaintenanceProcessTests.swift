import Foundation
import Testing
import TestSupport
import TestTraits

/// Maintenance in real processes (docs/CLI.md `maintain`, `serve`): a
/// server wipes an ended share's card on its own, on schedule, with a
/// clock the test moves (`--now-file`), and one process maintains a store
/// at a time.
@Suite(.hangDeadline, .ownThread) struct MaintenanceProcessTests {
    static let created = "2026-12-01T09:00:00Z"
    static let marker = "Maintained Marker 5d1c"

    /// A store in `directory` whose every run reads the time from a file,
    /// holding one share of `marker`'s card that lives an hour from
    /// `created`.
    static func storeWithOneShare(in directory: TemporaryDirectory) throws -> SharelogCLI {
        let cli = try SharelogCLI(store: directory.appending("store"), now: created, nowFile: directory.appending("now"))
        let card = directory.appending("card.vcf")
        try Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:\(marker)\r\nEND:VCARD\r\n".utf8).write(to: URL(fileURLWithPath: card))
        #expect(try cli.run("init").status == 0)
        #expect(try cli.run("share", "create", card, "--ttl", "1h").status == 0)
        return cli
    }

    /// Whether `process` has logged a line containing `text`, read now.
    static func logged(_ text: String, by process: ServeProcess) -> Bool {
        process.pump()
        return process.lines.contains { $0.contains(text) }
    }

    /// A server that runs with its defaults, started after the share
    /// ended, wipes the card from every file of the store in its first
    /// pass, with no command run.
    @Test func aServerWithItsDefaultsWipesAnEndedSharesCardAtItsFirstPass() throws {
        let directory = TemporaryDirectory("maintain")
        let cli = try Self.storeWithOneShare(in: directory)
        #expect(try StoreFiles.holding(Self.marker, in: cli.store) == ["data.mdb"])
        try cli.setTime("2026-12-01T10:00:00Z")
        let server = try ServeProcess(cli, socket: directory.appending("s.sock"))
        defer { _ = try? server.stop() }
        try Deadline.block(until: "the server's first pass wipes the card") {
            let wiped = try StoreFiles.holding(Self.marker, in: cli.store).isEmpty
            return wiped && Self.logged("maintenance at 2026-12-01T10:00:00.000Z: expired 1 share; redacted 1 card", by: server)
        }
        #expect(try cli.run("verify").status == 0)
    }

    /// A running server's passes come on schedule: the share ends while
    /// it runs, and the next pass after the clock passes its end wipes
    /// the card.
    @Test func aRunningServersNextPassWipesACardWhoseShareEndedMeanwhile() throws {
        let directory = TemporaryDirectory("maintain")
        let cli = try Self.storeWithOneShare(in: directory)
        let server = try ServeProcess(cli, socket: directory.appending("s.sock"), extra: ["--maintenance-every", "1"])
        defer { _ = try? server.stop() }
        // Still live: no pass may touch it, however many run meanwhile.
        try cli.setTime("2026-12-01T09:59:59Z")
        #expect(try StoreFiles.holding(Self.marker, in: cli.store) == ["data.mdb"])
        try cli.setTime("2026-12-01T10:00:30Z")
        try Deadline.block(until: "a pass after the share's end wipes the card") {
            let wiped = try StoreFiles.holding(Self.marker, in: cli.store).isEmpty
            return wiped && Self.logged("expired 1 share; redacted 1 card", by: server)
        }
        #expect(server.lines.filter { $0.contains("maintenance at") }.allSatisfy { $0.contains("2026-12-01T10:00:30.000Z") })
    }

    /// While a server maintains the store, `maintain --once` skips its
    /// pass; once the server is killed, the lock died with it and the
    /// next pass runs. A server with `--maintenance off` never takes it.
    @Test func oneProcessMaintainsAStoreAtATimeAndTheLockDiesWithItsHolder() throws {
        let directory = TemporaryDirectory("maintain")
        let cli = try Self.storeWithOneShare(in: directory)
        let once = { () throws -> Bool? in try cli.run("maintain", "--once", "--json").json["ran"] as? Bool }

        let server = try ServeProcess(cli, socket: directory.appending("s.sock"), extra: ["--maintenance-every", "3600"])
        // The server takes the lock at its first pass, as it starts.
        try Deadline.block(until: "maintain --once skips while the server maintains") { try once() == false }
        try server.kill()
        #expect(try once() == true)

        let unmaintained = try ServeProcess(cli, socket: directory.appending("t.sock"), extra: ["--maintenance", "off"])
        defer { _ = try? unmaintained.stop() }
        #expect(try once() == true)
    }

    /// Maintenance never makes a store look copied: the lock file is made
    /// with the store's other files, not by the first maintainer, whose
    /// making it changed the directory's ctime and so gave the store a new
    /// replica id at its next open (found by the docs' console run).
    @Test func maintainingKeepsTheStoresReplicaID() throws {
        let directory = TemporaryDirectory("maintain")
        let cli = try Self.storeWithOneShare(in: directory)
        let before = try cli.replicaID()
        for arguments in [["maintain", "--once"], ["maintain", "--once", "--trim"], ["maintain", "--once"]] {
            #expect(try cli.run(arguments: arguments).status == 0)
        }
        #expect(try cli.replicaID() == before)
    }

    /// Bad maintenance options fail before anything runs: a word that is
    /// not a choice, or options that do not go together, with 2 (usage);
    /// a number out of range with 5 (invalid input), as docs/CLI.md's
    /// exit codes say.
    @Test func badMaintenanceOptionsAreRefusedBeforeAnythingRuns() throws {
        let directory = TemporaryDirectory("maintain")
        let cli = try Self.storeWithOneShare(in: directory)
        let socket = "unix:\(directory.appending("s.sock"))"
        let cases: [([String], Int32)] = [
            (["serve", "--listen", socket, "--maintenance", "sometimes"], 2),
            (["serve", "--listen", socket, "--maintenance", "off", "--maintenance-every", "5"], 2),
            (["serve", "--listen", socket, "--maintenance-every", "0"], 5),
            (["maintain", "--once", "--every", "5"], 2),
            (["maintain", "--trim"], 2),
            (["maintain", "--every", "0"], 5),
            (["maintain", "--trim-every", "59"], 5),
        ]
        for (arguments, status) in cases {
            let result = try cli.run(arguments: arguments)
            #expect(result.status == status, "\(arguments): \(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appending("s.sock")))
        #expect(try StoreFiles.holding(Self.marker, in: cli.store) == ["data.mdb"])
    }
}
