import Foundation
import Testing
import TestSupport

extension SyncIntegrationTests {
    /// What `sync` and `serve` print is what README.md and docs/CLI.md show:
    /// `sync`'s two lines, and the server's session line with the peer, a
    /// colon, the directions (issue "The CLI keeps every promise its docs
    /// make", items 9 and 13).
    @Test func syncAndServePrintWhatTheDocsShow() throws {
        let directory = TemporaryDirectory("promises")
        let main = SharelogCLI(store: directory.appending("main"), now: Self.now)
        let follower = SharelogCLI(store: directory.appending("follower"), now: Self.now)
        #expect(try main.run("init").succeeded)
        _ = try Self.createShare(main, TestCard.make("Main", 0))
        let replica = try main.replicaID()
        let server = try ServeProcess(main, socket: directory.appending("s.sock"))
        defer { _ = try? server.stop() }
        let pulled = try follower.run("sync", "--connect", server.endpoint)
        #expect(pulled.succeeded, "\(pulled.error)")
        let lines = pulled.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty, "\(lines)")
        #expect(lines[0] == "received 1 event (1 new) from \(replica), sent 0 events")
        #expect(lines[1].wholeMatch(of: /[0-9]+ bytes in, [0-9]+ bytes out, [0-9]+ ms/) != nil, "\(lines[1])")
        try server.waitForEndedWellLines(1)
        let session = try #require(server.endedWellLines.first)
        let shape = /sharelog: session unix:\S+ \(pid [0-9]+, uid [0-9]+\) main [0-9a-f-]{36}: pull: ended well; received 0 events \(0 new\), sent 1, [0-9]+ bytes in, [0-9]+ out, [0-9]+ ms/
        #expect(session.wholeMatch(of: shape) != nil, "\(session)")
    }

    /// A `sync` or `clip open` that fails for a typo in its endpoint leaves
    /// no empty store behind, and one that existed stays (item 18).
    @Test func aSyncThatCannotConnectLeavesNoStoreBehind() throws {
        let directory = TemporaryDirectory("typo")
        let typo = "unix:\(directory.appending("no-such.sock"))"
        let fresh = SharelogCLI(store: directory.appending("fresh"), now: Self.now)
        let failed = try fresh.run("sync", "--connect", typo)
        #expect(failed.status == 1)
        #expect(failed.error.hasPrefix("sharelog: sync failed: "), "\(failed.error)")
        #expect(!FileManager.default.fileExists(atPath: fresh.store))
        let clip = SharelogCLI(store: directory.appending("clip"), now: Self.now)
        let opened = try clip.run("clip", "open", "https://cards.example.com/appclip?id=6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50", "--connect", typo)
        #expect(opened.status == 1)
        #expect(!FileManager.default.fileExists(atPath: clip.store))
        let existing = SharelogCLI(store: directory.appending("existing"), now: Self.now)
        #expect(try existing.run("init").succeeded)
        #expect(try existing.run("sync", "--connect", typo).status == 1)
        #expect(FileManager.default.fileExists(atPath: existing.store))
    }

    /// Nor does a typo in a `tcp:` or `exec:` endpoint: a missing store is
    /// made only once a server has accepted the session, whatever the
    /// transport (item 18). An `exec:` command that cannot be run is named,
    /// with its exit status, not the pipes' descriptors.
    @Test func aTypoInATCPOrExecEndpointLeavesNoStoreBehind() throws {
        let directory = TemporaryDirectory("typo-forms")
        let keyFile = directory.appending("sync.key")
        #expect(try SharelogCLI(store: directory.appending("keys"), now: Self.now).run("keygen", keyFile).succeeded)
        let link = "https://cards.example.com/appclip?id=6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50"
        // Port 1 (tcpmux) is privileged and served by nothing here.
        let cases: [(store: String, arguments: [String], status: Int32, error: String)] = [
            ("sync-tcp", ["sync", "--connect", "tcp:127.0.0.1:1", "--key-file", keyFile], 1, "sharelog: sync failed: nothing accepts connections at tcp:127.0.0.1:1"),
            ("sync-exec", ["sync", "--connect", "exec:nosuchcmd-xyz"], 1,
             "sharelog: sync failed: the command 'nosuchcmd-xyz' could not be run: the shell found no such command (exit status 127)"),
            ("clip-exec", ["clip", "open", link, "--connect", "exec:nosuchcmd-xyz"], 1,
             "sharelog: cannot fetch share 6f1c2a9e-58b4-4d9a-9f0e-2b7c1d3e4f50: the command 'nosuchcmd-xyz' could not be run: the shell found no such command (exit status 127)"),
            ("clip-tcp", ["clip", "open", link, "--connect", "tcp:127.0.0.1:1"], 2, "sharelog: a clip does not sync over tcp:"),
            ("sync-exit", ["sync", "--connect", "exec:exit 3"], 1, "sharelog: sync failed: the command 'exit 3' ended (exit status 3) before the session did"),
        ]
        for typo in cases {
            let cli = SharelogCLI(store: directory.appending(typo.store), now: Self.now)
            let failed = try cli.run(arguments: typo.arguments)
            #expect(failed.status == typo.status, "\(typo.arguments): \(failed.error)")
            #expect(failed.error.contains(typo.error), "\(typo.arguments): \(failed.error)")
            #expect(!failed.error.contains("descriptors"), "\(failed.error)")
            #expect(!FileManager.default.fileExists(atPath: cli.store), "\(typo.arguments) left a store")
        }
    }

    /// A store that `sync` makes over `exec:` is made once the server has
    /// accepted, and is the replica its hello named: the server's session
    /// line (on the command's standard error, which is sync's) gives the
    /// id that the new store has.
    @Test func aStoreMadeOnceTheServerAcceptedIsTheReplicaItAnnounced() throws {
        let directory = TemporaryDirectory("made-late")
        let main = SharelogCLI(store: directory.appending("main"), now: Self.now)
        #expect(try main.run("init").succeeded)
        _ = try Self.createShare(main, TestCard.make("Main", 0))
        let follower = SharelogCLI(store: directory.appending("follower"), now: Self.now)
        let server = "exec:'\(SharelogCLI.executable)' --store '\(main.store)' --now \(Self.now) serve --stdio"
        let pulled = try follower.run("sync", "--connect", server)
        #expect(pulled.succeeded, "\(pulled.error)")
        #expect(pulled.text.hasPrefix("received 1 event (1 new) from \(try main.replicaID()), sent 0 events\n"), "\(pulled.text)")
        let announced = try #require(pulled.error.firstMatch(of: /session stdio main ([0-9a-f-]{36}): pull: ended well/)?.1, "\(pulled.error)")
        #expect(String(announced) == (try follower.replicaID()))
        #expect(try follower.eventCount() == 1)
    }

    /// `serve --listen` names the forms a server can listen on (item 12).
    @Test func serveRefusesAnEndpointItCannotListenOn() throws {
        let directory = TemporaryDirectory("listen")
        let main = SharelogCLI(store: directory.appending("main"), now: Self.now)
        #expect(try main.run("init").succeeded)
        let command = try main.run("serve", "--listen", "exec:cat")
        #expect(command.status == 5)
        #expect(command.error == "sharelog: --listen: a command cannot be listened on; use unix:PATH or tcp:HOST:PORT (or --stdio)\n")
        let garbage = try main.run("serve", "--listen", "bogus")
        #expect(garbage.status == 5)
        #expect(garbage.error == "sharelog: --listen: 'bogus' is not an endpoint; use unix:PATH or tcp:HOST:PORT (or --stdio)\n")
    }
}
