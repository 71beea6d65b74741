import Foundation
import SampleCards
import ShareLog
import TestSupport
@testable import ShareSync

/// A keyed `sharelog serve`, on a Unix socket or on TCP under TLS, over a
/// store of `shares` seeded shares, the links and cards of those shares as
/// the seed made them, and a store and key of the bad clients' own.
final class HostileLoadBench {
    /// Shares in the served store: one event each.
    static let shares = 3_000
    /// Each card's photo, so that a fetch carries a realistic card.
    static let photoBytes = 800
    /// The server's session limit, given explicitly, and its handshake timeout.
    static let maxConnections = 64
    static let handshakeTimeoutSeconds = 3
    /// How long a clip may ask for nothing: short, so the idle clips are
    /// ended, and their places freed, many times during the test.
    static let clipIdleTimeoutSeconds = 2

    let directory = TemporaryDirectory("hostile")
    let main: SharelogCLI
    /// The link of seeded share `i`, from the seeding store.
    let links: [String]
    let keyFile: String
    let key: SyncKey
    let otherKeyFile: String
    let stranger: SharelogCLI
    private(set) var server: ServeProcess?

    init() throws {
        main = .forFaults(store: directory.appending("main"))
        links = try SeedStore.build(at: main.store) { store in
            var links: [String] = []
            for start in stride(from: 0, to: Self.shares, by: 1_000) {
                let cards = (start..<min(start + 1_000, Self.shares)).map(Self.card)
                links += try store.create(vCards: cards).map(\.link)
            }
            return links
        }
        keyFile = directory.appending("sync.key")
        otherKeyFile = directory.appending("other.key")
        for file in [keyFile, otherKeyFile] { _ = try main.run("keygen", file).checked("sharelog keygen") }
        key = try SyncKey.load(from: keyFile)
        stranger = .forFaults(store: directory.appending("stranger"))
        _ = try SeedStore.build(at: stranger.store) { try SeedStore.create((0..<5).map { SampleCard.make(index: 90_000 + $0) }, in: $0) }
    }

    /// Stops the server before `directory`, which holds its store, goes.
    deinit { _ = try? server?.stop() }

    /// The card of seeded share `index`, made again from the seed.
    static func card(_ index: Int) -> [UInt8] { SampleCard.make(index: index, photoBytes: photoBytes) }

    /// Starts the server on `transport` (TCP: a free port of 127.0.0.1):
    /// keyed, 64 sessions, a 3 s handshake timeout.
    func serve(over transport: HostileNetworkBench.Transport) throws -> ServeProcess {
        let listen = transport == .tcp ? "tcp:127.0.0.1:0" : "unix:\(directory.appending("s"))"
        let server = try ServeProcess(main, listen: listen, extra: [
            "--key-file", keyFile, "--max-connections", "\(Self.maxConnections)", "--handshake-timeout", "\(Self.handshakeTimeoutSeconds)",
            "--clip-idle-timeout", "\(Self.clipIdleTimeoutSeconds)",
        ])
        self.server = server
        return server
    }

    /// Records a session that gets in: `sharelog sync --push` of the
    /// stranger's 5 shares under the right key, to a scratch server (a
    /// store of its own, the same key), through a relay. Returns what the
    /// client sent: its hello, and everything after it (its proof, its
    /// batch). The scratch store then holds the 5 events: sent again
    /// to a server that took the proof, those bytes would write.
    func recordPush() throws -> (hello: [UInt8], rest: [UInt8]) {
        let scratch = SharelogCLI.forFaults(store: directory.appending("scratch"))
        _ = try scratch.run("init").checked("sharelog init")
        let socket = directory.appending("scratch.sock")
        let server = try ServeProcess(scratch, socket: socket, extra: ["--key-file", keyFile])
        defer { _ = try? server.stop() }
        let relay = try FrameRelay(at: directory.appending("r.sock"))
        let process = try stranger.start(["sync", "--connect", "unix:\(relay.path)", "--push", "--key-file", keyFile])
        let connections = try relay.relay(to: socket, while: process)
        _ = try CLIResult(try process.finish(timeout: .seconds(60))).checked("sharelog sync --push (recorded)")
        guard connections.count == 1, let stream = connections.first?.fromClient, stream.count > 4 else {
            throw HarnessFailure.unexpected("the recorded push made \(connections.count) connections")
        }
        let sent = try RawPeer.messages(in: stream).map(\.type)
        guard sent.first == .hello, sent.dropFirst().first == .authenticate, sent.contains(.batch), try scratch.eventCount() == 5 else {
            throw HarnessFailure.unexpected("the recorded push sent \(sent) and left \(try scratch.eventCount()) events, not a hello, a proof and a batch of 5")
        }
        // A frame is 4 length bytes, a type byte, 4 checksum bytes and the payload.
        let helloBytes = 9 + stream[0..<4].reduce(0) { $0 << 8 | Int($1) }
        return (Array(stream[..<helloBytes]), Array(stream[helloBytes...]))
    }

    /// `clip open LINK --connect … --vcard` for good clip `clip`, into a
    /// store of its own: it fetches share `shareIndex(clip)`.
    func clipCommand(_ clip: Int, endpoint: String) -> (cli: SharelogCLI, arguments: [String]) {
        let cli = SharelogCLI.forFaults(store: directory.appending("clip\(clip)"))
        return (cli, ["clip", "open", links[Self.shareIndex(clip)], "--connect", endpoint, "--vcard"])
    }

    /// `sync --connect … --pull --key-file K --json` for good main `index`,
    /// into a fresh store of its own: it must end with every seeded event.
    func mainCommand(_ index: Int, endpoint: String) -> (cli: SharelogCLI, arguments: [String]) {
        let cli = SharelogCLI.forFaults(store: directory.appending("good-main\(index)"))
        return (cli, ["sync", "--connect", endpoint, "--pull", "--key-file", keyFile, "--json"])
    }

    /// The share good clip `clip` fetches: spread over the store, no two alike.
    static func shareIndex(_ clip: Int) -> Int { (clip * 29 + 7) % shares }
}
