import Foundation
import Glibc
import SampleCards
import ShareSync
import Testing
import TestSupport

/// A served main store, a well-behaved follower that pulls from it, and
/// the bookkeeping to show that a bad client's session was refused on its
/// own: one `closed` line in the server's log, nothing written to the
/// main store, and the follower's next sync still fine.
///
/// Every count it expects is kept here by hand, from what the test did,
/// never read back from the code under test.
final class BadClientBench {
    enum Transport: String, CaseIterable, Sendable {
        /// A Unix socket, served with a key: main clients must prove it.
        case unix
        /// TCP under TLS 1.3 with the key.
        case tcp
    }

    /// Shares in the main store before the test starts.
    static let initialShares = 20
    /// How long the server gives a connection to finish its handshake.
    static let handshakeTimeoutSeconds = 3

    let transport: Transport
    let directory = TemporaryDirectory("bad")
    let main: SharelogCLI
    let follower: SharelogCLI
    let keyFile: String
    let otherKeyFile: String
    let key: SyncKey
    let server: ServeProcess
    /// Events the main store holds: the initial shares plus those the
    /// test created since.
    private(set) var mainEvents: Int
    /// Events the follower holds.
    private(set) var followerEvents = 0
    private var closedSessions = 0
    private var goodSessions = 0
    private var sharesCreated = 0

    init(_ transport: Transport) throws {
        self.transport = transport
        main = .forFaults(store: directory.appending("main"))
        follower = .forFaults(store: directory.appending("follower"))
        mainEvents = try SeedStore.build(at: main.store, sampleCards: Self.initialShares).count
        keyFile = directory.appending("sync.key")
        otherKeyFile = directory.appending("other.key")
        for file in [keyFile, otherKeyFile] { _ = try main.run("keygen", file).checked("sharelog keygen") }
        key = try SyncKey.load(from: keyFile)
        let listen = transport == .unix ? "unix:\(directory.appending("s"))" : "tcp:127.0.0.1:0"
        server = try ServeProcess(
            main, listen: listen, extra: ["--key-file", keyFile, "--handshake-timeout", "\(Self.handshakeTimeoutSeconds)"])
    }

    /// Stops the server before `directory`, which holds its store, goes.
    deinit { _ = try? server.stop() }

    /// A connection of the test's own, through TLS with the right key on
    /// TCP, so that what it sends reaches the sync protocol.
    func connect() throws -> RawPeer { try RawPeer(Endpoint(parsing: server.endpoint), key: transport == .tcp ? key : nil) }

    /// A plain connection: no TLS even on TCP.
    func connectPlain() throws -> RawPeer { try RawPeer(Endpoint(parsing: server.endpoint)) }

    /// `sharelog sync` on the store at `path` against the server.
    func sync(store path: String, keyFile: String?, _ extra: String...) throws -> CLIResult {
        try SharelogCLI.forFaults(store: path).run(
            arguments: ["sync", "--connect", server.endpoint, "--json"] + (keyFile.map { ["--key-file", $0] } ?? []) + extra)
    }

    /// One share more on main, made by another process while it is
    /// served, then one pull by the follower, which must bring exactly the
    /// events the follower lacks, in a session the server logs as ended well.
    func goodSync(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let card = SampleCard.make(index: 1_000 + sharesCreated)
        let created = try main.run("share", "create", "-", "--ttl", "1d", "--json", input: card)
        #expect(created.status == 0, "share create on the served main store: \(created.error)", sourceLocation: sourceLocation)
        sharesCreated += 1
        mainEvents += 1
        let pulled = try sync(store: follower.store, keyFile: keyFile, "--pull")
        try #require(pulled.status == 0, "the well-behaved client's sync: \(pulled.error)", sourceLocation: sourceLocation)
        #expect(pulled.json["eventsApplied"] as? Int == mainEvents - followerEvents, sourceLocation: sourceLocation)
        followerEvents = mainEvents
        goodSessions += 1
        try server.waitForEndedWellLines(goodSessions)
        server.pump()
        #expect(server.closedLines.count == closedSessions, "a good session logged as closed: \(server.lines)", sourceLocation: sourceLocation)
    }

    /// A second well-behaved client that stays connected all along:
    /// `sync --follow` into its own store, for the whole test.
    func startWatcher() throws -> Subprocess {
        try SharelogCLI.forFaults(store: directory.appending("watcher")).start(
            ["sync", "--connect", server.endpoint, "--follow", "--key-file", keyFile, "--heartbeat", "1"])
    }

    /// The watcher, connected through every bad client, holds every event
    /// of main (those made by other processes come on the server's next
    /// tick); then SIGINT ends it with status 0.
    func expectWatcherCaughtUp(_ watcher: Subprocess, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = SharelogCLI.forFaults(store: directory.appending("watcher"))
        try Deadline.block(until: "the watcher holds all \(mainEvents) events", timeout: .seconds(60), every: .milliseconds(100)) {
            guard watcher.isRunning else { return true }
            return (try? store.eventCount()) == mainEvents
        }
        #expect(watcher.isRunning, "the watcher's follow ended early: \(String(decoding: watcher.errorOutput, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(try store.eventCount() == mainEvents, sourceLocation: sourceLocation)
        Glibc.kill(watcher.pid, SIGINT)
        let outcome = try watcher.finish(timeout: .seconds(30))
        #expect(outcome.status == 0 && !outcome.signaled, "the watcher after SIGINT: \(String(decoding: outcome.error, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    /// After a bad client: the server logged exactly one more closed
    /// session, whose reason holds each of `reasons`; the main store holds
    /// exactly the events it held, and `verify` passes; then the follower
    /// syncs as well as before.
    func expectRefused(_ what: String, reasons: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        closedSessions += 1
        try server.waitForClosedLines(closedSessions)
        let line = server.closedLines.last ?? ""
        print("BadClientTests [\(transport)] \(what): \(line)")
        #expect(
            server.closedLines.count == closedSessions, "\(what): more than one closed line: \(server.closedLines)", sourceLocation: sourceLocation)
        for reason in reasons {
            #expect(line.contains(reason), "\(what): the server's line '\(line)' does not say '\(reason)'", sourceLocation: sourceLocation)
        }
        #expect(try main.eventCount() == mainEvents, "\(what) changed the main store", sourceLocation: sourceLocation)
        #expect(try main.verify() == 0, "\(what): verify on the main store", sourceLocation: sourceLocation)
        try goodSync(sourceLocation: sourceLocation)
    }
}
