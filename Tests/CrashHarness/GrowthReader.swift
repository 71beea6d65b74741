import Foundation
import ShareLog

/// The reader child of the cross-process map growth test
/// (`CrossProcessGrowthTests`): it opens a store with a small map and reads
/// it over and over while the parent process writes and grows the map.
///
/// The parent writes by a rule the reader knows: log entry `i` (sequence
/// `i + 1`) creates a share of `CrashCard.bytes(index: i)` at
/// `time + i / batch` milliseconds, living an hour, and `batch` shares are
/// committed per transaction. Each round the reader reads the whole log in
/// one snapshot and checks it against the rule: whole batches only, every
/// card exact, the count never going back. It fetches the newest share by
/// its record name, and every tenth round it runs `verify`, one long read
/// held while the parent commits and grows the map.
///
/// Output, one line per `write(2)`: `ready <map bytes>` after the first
/// round; `saw <entries> <map bytes>` whenever a snapshot holds more entries
/// than the last; `done <rounds>` once it saw `target` entries (exit 0);
/// `bad <what>` for a snapshot that breaks the rule, or an error (exit 1).
public enum GrowthReader {
    /// How long the reader runs at most, so it stops if its parent vanished.
    static let lifetime = Duration.seconds(240)
    static let ttl = Duration.seconds(3600)

    /// Runs the reader with `--store DIR --map BYTES --target N --batch N --time MS`.
    ///
    /// - Returns: the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        var values: [String: String] = [:]
        var remaining = arguments[...]
        while let flag = remaining.popFirst(), flag.hasPrefix("--"), let value = remaining.popFirst() {
            values[String(flag.dropFirst(2))] = value
        }
        guard let path = values["store"], let map = values["map"].flatMap(Int.init),
              let target = values["target"].flatMap(Int.init), let batch = values["batch"].flatMap(Int.init), batch > 0,
              let time = values["time"].flatMap(Int64.init)
        else {
            say("bad usage: reader --store DIR --map BYTES --target N --batch N --time MS")
            return 2
        }
        do {
            var reader = try Reader(path: path, map: map, batch: batch, time: time)
            return try reader.run(until: target)
        } catch {
            say("bad \(error)")
            return 1
        }
    }

    /// Writes one line with a single `write(2)`.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    struct Reader {
        let store: ShareStore
        let batch: Int
        let time: Int64
        /// The cards the rule implies, made once each.
        var cards: [[UInt8]] = []
        var seen = 0

        init(path: String, map: Int, batch: Int, time: Int64) throws {
            var options = ShareStore.Options()
            options.clock = FixedClock(Timestamp(milliseconds: time))
            options.environment.mapSize = map
            store = try ShareStore.open(at: path, options: options)
            self.batch = batch
            self.time = time
        }

        mutating func run(until target: Int) throws -> Int32 {
            let end = ContinuousClock.now.advanced(by: lifetime)
            var rounds = 0
            while ContinuousClock.now < end {
                if let problem = try round(verifying: rounds % 10 == 9) {
                    say("bad \(problem)")
                    return 1
                }
                if rounds == 0 { say("ready \(try store.stats().mapBytes)") }
                rounds += 1
                if seen >= target {
                    say("done \(rounds)")
                    return 0
                }
            }
            say("bad gave up after \(lifetime): saw \(seen) of \(target) entries")
            return 1
        }

        /// One snapshot of the log, checked; nil when it is what the rule implies.
        mutating func round(verifying: Bool) throws -> String? {
            let entries = try store.events(after: 0, limit: .max, maxBytes: .max)
            guard entries.count % batch == 0 else { return "a snapshot of \(entries.count) entries splits a batch of \(batch)" }
            guard entries.count >= seen else { return "a snapshot of \(entries.count) entries after one of \(seen)" }
            while cards.count < entries.count { cards.append(CrashCard.bytes(index: cards.count)) }
            for (index, logged) in entries.enumerated() {
                let createdAt = Timestamp(milliseconds: time + Int64(index / batch))
                guard logged.position == UInt64(index + 1), case .shareCreated(let created) = logged.event.kind,
                      created.vCard == cards[index], created.createdAt == createdAt,
                      created.expiresAt == createdAt.advanced(by: ttl)
                else { return "entry \(index + 1) is not share \(index) with its card: \(logged.position) \(logged.event.kind)" }
            }
            if let newest = entries.last, case .shareCreated(let created) = newest.event.kind {
                guard case .live(let share) = try store.fetch(created.recordName), share.vCard == cards[entries.count - 1] else {
                    return "share \(created.recordName) does not fetch with its card"
                }
            }
            if verifying {
                let report = try store.verify()
                guard report.isConsistent else { return "verify: \(report)" }
            }
            if entries.count > seen {
                seen = entries.count
                say("saw \(seen) \(try store.stats().mapBytes)")
            }
            return nil
        }
    }
}
