import Foundation
import TestSupport

/// A main store, served over a Unix socket to clip stores, all in one
/// temporary directory: the stage of the clip lifecycle tests.
///
/// Every process runs at a `--now` the test names (`main(at:)`,
/// `clip(_:at:)`), so the main store, its server and each clip agree on
/// the time, as they would in the field. The server is stopped when the
/// bench goes, even when the test failed.
final class ClipBench {
    /// The `--now` at which `share(_:ttl:)` creates shares, and
    /// `SeedStore.createdAt`, at which `init(seededShares:)` creates them.
    static let created = "2026-12-01T10:00:00Z"

    let directory: TemporaryDirectory
    let mainPath: String
    /// The server's socket: `serve(at:)` listens there.
    let socket: String
    private var server: ServeProcess?

    /// A bench whose main store holds `seededShares` shares of sample cards
    /// (seven-day TTL, made at `created`) before the test makes its own.
    init(_ label: String, seededShares: Int = 0) throws {
        directory = TemporaryDirectory(label)
        mainPath = directory.appending("main")
        socket = directory.appending("s.sock")
        if seededShares > 0 {
            _ = try SeedStore.build(at: mainPath, sampleCards: seededShares)
        } else {
            _ = try main(at: Self.created).run("init").checked("sharelog init (main)")
        }
    }

    deinit { _ = try? server?.stop() }

    /// The CLI on the main store at `now`.
    func main(at now: String) -> SharelogCLI { SharelogCLI(store: mainPath, now: now) }

    /// The CLI on the store `name` of this directory (a clip's, or the full
    /// app's) at `now`.
    func clip(_ name: String, at now: String) -> SharelogCLI {
        SharelogCLI(store: directory.appending(name), now: now)
    }

    /// Shares `card` on the main store at `created`, with `ttl` (`share
    /// create --ttl`, seven days when nil); returns the id and link it printed.
    func share(_ card: MarkedCard, ttl: String? = nil) throws -> (id: String, link: String) {
        let created = try main(at: Self.created).run(
            arguments: ["share", "create", "-", "--json"] + (ttl.map { ["--ttl", $0] } ?? []), input: card.bytes)
            .checked("sharelog share create (\(card.name))")
        guard let id = created.json["id"] as? String, let link = created.json["link"] as? String else {
            throw HarnessFailure.unexpected("share create printed no id and link: \(created.text)")
        }
        return (id, link)
    }

    /// Starts `sharelog serve` on the main store at `now`, on `socket`
    /// (stopping the server it ran before); returns the `--connect` argument.
    /// It does not maintain the store (`--maintenance off`): these tests
    /// sweep main, or leave a share ended but unswept, themselves.
    @discardableResult
    func serve(at now: String) throws -> String {
        try stopServer()
        let started = try ServeProcess(main(at: now), socket: socket, extra: ["--maintenance", "off"])
        server = started
        return started.endpoint
    }

    /// Stops the server, if one runs; its socket then refuses connections.
    func stopServer() throws {
        guard let running = server else { return }
        server = nil
        _ = try running.stop().checked("sharelog serve")
    }

    /// The files under `store` (a store's directory) whose raw bytes hold
    /// `marker`, by name; empty when none does. Read as bytes from disk,
    /// past every layer of the store.
    static func files(holding marker: String, in store: String) throws -> [String] {
        let needle = Array(marker.utf8)
        let names = try FileManager.default.contentsOfDirectory(atPath: store).sorted()
        return try names.filter { name in
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: (store as NSString).appendingPathComponent(name))))
            return contains(bytes, needle)
        }
    }

    /// Whether `bytes` holds `needle` anywhere.
    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first, bytes[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
