import CrashHarness
import Foundation
import TestSupport
import Testing
@testable import ShareLog
import TestTraits

/// Map growth while another process reads: this process writes shares in
/// batches to a store whose map starts at 256 KiB, so the map doubles again
/// and again, while a `sharelog-crash reader` child, which opened the store
/// with the same small map, reads it over and over (see `GrowthReader`).
///
/// The reader must see only whole batches, every card exact, and no error,
/// and must adopt each larger map: once the pages in use pass the end of
/// the map before a growth, this process waits until the reader has read
/// that far, and the reader's map is then the same size as this process's.
/// The reader also runs `verify`, a long read, while the map grows.
///
/// The reader runs under a watchdog and is killed on every path out of the
/// test; every wait has a deadline.
@Suite(.hangDeadline)
struct CrossProcessGrowthTests {
    static let initialMap = 256 << 10
    static let batch = 4, batches = 400

    @Test func aReaderInAnotherProcessSeesWholeBatchesAndAdoptsEveryGrowth() throws {
        let fixture = try ReliabilityStore { $0.environment.mapSize = Self.initialMap }
        let store = fixture.store
        let reader = try ChildProcess(ExternalCommand.built("sharelog-crash"), [
            "reader", "--store", fixture.path, "--map", "\(Self.initialMap)", "--target", "\(Self.batch * Self.batches)",
            "--batch", "\(Self.batch)", "--time", "\(ReliabilityStore.start)",
        ])
        defer { reader.stop() }
        #expect(try reader.nextLine(until: "the reader opened the store") == "ready \(Self.initialMap)")

        var map = Self.initialMap, growths = 0, unsynced = false
        for number in 0..<Self.batches {
            // The rule the reader checks: entry i is card i, created at start + i / batch ms.
            fixture.clock.set(ReliabilityStore.start + Int64(number))
            let cards = (0..<Self.batch).map { CrashCard.bytes(index: number * Self.batch + $0) }
            _ = try store.create(vCards: cards, ttl: .seconds(3600))
            let stats = try store.stats()
            if stats.mapBytes != map {
                #expect(stats.mapBytes == 2 * map)
                map = stats.mapBytes
                growths += 1
                unsynced = true
            }
            // LMDB makes a reader adopt the larger map once the pages in use
            // pass the end of its own (MDB_MAP_RESIZED), to the size the last
            // commit recorded: this process's map.
            guard unsynced, stats.usedBytes > map / 2 else { continue }
            unsynced = false
            let seen = try Self.waitForReader(reader, toSee: (number + 1) * Self.batch)
            #expect(seen.map == map, "the reader's map after growth \(growths)")
        }
        let last = try Self.waitForReader(reader, toSee: Self.batch * Self.batches)
        // By the same rule, the reader adopts the last growth only if the
        // pages in use passed the end of the map before it. Whether the last
        // growth comes that late depends on how long the reader's snapshots
        // held pages the writer could not reuse: it failed a run that
        // expected the larger map always (4 MiB against 8 MiB).
        #expect(last.map == (unsynced ? map / 2 : map), "after \(growths) growths, the last one \(unsynced ? "not yet " : "")passed by the pages in use")
        #expect(try reader.nextLine(until: "the reader finishes").hasPrefix("done "))
        try reader.waitForExit()
        #expect(reader.exitStatus == 0, "\(reader.ending)")
        // 1,600 shares need a map of 4 MiB or more: four growths while the reader read.
        #expect(growths >= 4)
        #expect(try store.verify().isConsistent)
    }

    /// What the reader said it saw: a snapshot's entries and its map size.
    struct Seen {
        let entries: Int
        let map: Int
    }

    /// Reads the reader's lines until it has seen at least `entries` entries.
    ///
    /// - Throws: `ChildProcess.Failure` for a `bad` line or any other line
    ///   it should not print; `DeadlineExceeded` after a minute.
    static func waitForReader(_ reader: ChildProcess, toSee entries: Int) throws -> Seen {
        let deadline = Deadline("the reader sees \(entries) entries")
        while true {
            try deadline.check()
            let line = try reader.nextLine(until: "the reader sees \(entries) entries")
            let words = line.split(separator: " ")
            guard words.count == 3, words[0] == "saw", let seen = Int(words[1]), let map = Int(words[2]) else {
                throw ChildProcess.Failure(description: "the reader said '\(line)'; \(reader.errorOutput)")
            }
            if seen >= entries { return Seen(entries: seen, map: map) }
        }
    }
}
