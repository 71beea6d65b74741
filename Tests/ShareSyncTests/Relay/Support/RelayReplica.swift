import Foundation
import ShareLog
import TestSupport

/// One ShareLog replica of the relay's tests: its store, opened in this
/// process to write shares and read what arrived, its copy of the stream
/// key, and the `sharelog` CLI on the store for its relay and `verify`.
///
/// Every replica runs at `now`: the test process's store and every
/// `sharelog` run use it, so the shares made here are live wherever they
/// arrive, and the stream key stays at one hour.
final class RelayReplica: Sendable {
    static let nowText = "2026-12-01T10:00:00Z"
    static let now = Timestamp(iso8601: nowText)!

    let label: String
    let store: ShareStore
    let cli: SharelogCLI
    /// This replica's copy of the stream key file (mode 0600).
    let streamKey: String

    /// Makes the stream key file at `path` with `sharelog relay-key`.
    static func makeStreamKey(at path: String) throws {
        _ = try SharelogCLI(store: path + ".unused", now: nowText).run("relay-key", path).checked("sharelog relay-key")
    }

    /// Opens (creating) the store `label` under `directory` and copies the
    /// key file at `streamKey` beside it, as an operator copies it to
    /// every replica.
    init(_ label: String, in directory: String, streamKey source: String) throws {
        self.label = label
        let path = (directory as NSString).appendingPathComponent(label)
        var options = ShareStore.Options()
        options.clock = FixedClock(Self.now)
        store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
        cli = SharelogCLI(store: path, now: Self.nowText, timeout: .seconds(120))
        streamKey = path + ".stream-key"
        let key = try Data(contentsOf: URL(fileURLWithPath: source))
        guard FileManager.default.createFile(atPath: streamKey, contents: key, attributes: [.posixPermissions: 0o600]) else {
            throw HarnessFailure.unexpected("could not copy the stream key to \(streamKey)")
        }
    }

    /// Starts this replica's relay on `cluster`, and waits until it caught up.
    func startRelay(_ cluster: NatsCluster, extra: [String] = []) throws -> RelayProcess {
        try RelayProcess(cli, nats: cluster.serverURLList, streamKey: streamKey, extra: extra)
    }

    /// Creates `count` shares of cards numbered from `first` (`TestCard`
    /// with this replica's label), `perTransaction` a transaction, and
    /// returns each one's card by record name.
    func create(_ count: Int, from first: Int = 0, perTransaction: Int = 10) throws -> [RecordName: [UInt8]] {
        var made: [RecordName: [UInt8]] = [:]
        var index = first
        while index < first + count {
            let cards = (index..<min(index + perTransaction, first + count)).map { TestCard.make(label, $0) }
            for (share, card) in zip(try store.create(vCards: cards), cards) { made[share.recordName] = card }
            index += cards.count
        }
        return made
    }

    /// What differs between this replica and `expected`: a share not live
    /// with its card, and a log that holds more or fewer events (each
    /// share is one creation; nothing else happens at `now`). Empty when
    /// it holds exactly `expected`.
    func differences(from expected: [RecordName: [UInt8]]) throws -> [String] {
        var found: [String] = []
        let events = try store.stats(at: Self.now).events
        if events != expected.count { found.append("\(label) logs \(events) events, not \(expected.count)") }
        for (name, card) in expected {
            switch try store.fetch(name, at: Self.now) {
            case .live(let share) where share.vCard == card: continue
            case let other: found.append("\(label): \(name) is \(other)")
            }
            if found.count > 5 { break }
        }
        return found
    }

    /// Waits until this replica holds exactly `expected`.
    func waitUntilHolds(_ expected: [RecordName: [UInt8]], timeout: Duration = .seconds(120)) throws {
        var last: [String] = []
        do {
            try Deadline.block(until: "\(label) holds the \(expected.count) shares", timeout: timeout, every: .milliseconds(20)) {
                last = try differences(from: expected)
                return last.isEmpty
            }
        } catch let error as DeadlineExceeded {
            throw HarnessFailure.unexpected("\(error): \(last)")
        }
    }
}
