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
