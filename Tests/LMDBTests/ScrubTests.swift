import CLMDB
import Dispatch
import Foundation
import Glibc
import LMDBScrub
import TestSupport
import Testing
import TestTraits
@testable import LMDB
import SharePrimitives

@Suite(.ownThread) struct ScrubTests {
    /// Repeated through every secret value, so that any fragment of one
    /// longer than about 80 bytes contains it.
    static let marker = Array("VCARD-SECRET".utf8)

    /// An environment with two databases, "shares" (secrets and public
    /// entries mixed) and "notes" (public entries only).
    struct Fixture {
        let directory: TemporaryDirectory
        let env: Environment
        let shares: Database
        let notes: Database

        init(label: String = #function) throws {
            directory = TemporaryDirectory(label)
            env = try Environment.open(at: directory.path, databases: ["shares", "notes"])
            shares = try env.database("shares")
            notes = try env.database("notes")
        }

        /// The raw bytes of data.mdb.
        func rawFile() throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: directory.appending("data.mdb")))
        }

        /// True when data.mdb holds `marker` anywhere.
        func fileContainsMarker() throws -> Bool {
            try rawFile().range(of: Data(ScrubTests.marker)) != nil
        }

        /// Every entry of `database`, copied.
        func contents(of database: Database) throws -> [[UInt8]: [UInt8]] {
            try env.read { txn in
                var all: [[UInt8]: [UInt8]] = [:]
                try txn.scan(database) { entry in
                    all[Array(entry.key)] = Array(entry.value)
                    return .proceed
                }
                return all
            }
        }
    }

    /// A value of `size` bytes that repeats the marker and `number`.
    static func secret(_ number: Int, size: Int) -> [UInt8] {
        let unit = Array("VCARD-SECRET;TEL:+33-6-\(10_000_000 + number);EMAIL:p\(number)@example.org;".utf8)
        return (0..<size).map { unit[$0 % unit.count] }
    }

    /// A value of `size` bytes with no marker in it.
    static func publicValue(_ number: Int, size: Int) -> [UInt8] {
        let unit = Array("note \(number) public;".utf8)
        return (0..<size).map { unit[$0 % unit.count] }
    }

    static func secretKey(_ number: Int) -> [UInt8] { Array("share-\(String(format: "%05d", number))".utf8) }
    static func publicKey(_ number: Int) -> [UInt8] { Array("share-\(String(format: "%05d", number))-note".utf8) }

    /// Keys and values of a workload: small secrets, large (overflow)
    /// secrets, and public entries of many sizes whose keys sort between
    /// the secrets', so that pages split and nodes move.
    struct Workload {
        var secrets: [[UInt8]: [UInt8]] = [:]
        var shares: [[UInt8]: [UInt8]] = [:]
        var notes: [[UInt8]: [UInt8]] = [:]

        init(smallSecrets: Int = 240, largeSecrets: Int = 16) {
            var generator = SeededGenerator(seed: 7)
            for number in 0..<smallSecrets {
                secrets[ScrubTests.secretKey(number)] = ScrubTests.secret(number, size: 900 + Int(generator.next() % 300))
            }
            for number in smallSecrets..<smallSecrets + largeSecrets {
                secrets[ScrubTests.secretKey(number)] = ScrubTests.secret(number, size: 60_000 + Int(generator.next() % 4000))
            }
            for number in 0..<smallSecrets + largeSecrets {
                let size = number % 25 == 0 ? 9_000 + Int(generator.next() % 9_000) : 10 + Int(generator.next() % 1500)
                shares[ScrubTests.publicKey(number)] = ScrubTests.publicValue(number, size: size)
            }
            for number in 0..<400 {
                let size = number % 40 == 0 ? 20_000 : 1 + Int(generator.next() % 700)
                notes[Array("note-\(number)".utf8)] = ScrubTests.publicValue(number, size: size)
            }
        }
    }

    /// Writes `workload` in several commits, interleaving secrets and
    /// public entries.
    static func write(_ workload: Workload, to fixture: Fixture) throws {
        let shares = fixture.shares, notes = fixture.notes
        let secrets = workload.secrets.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        let publics = workload.shares.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        let noteEntries = workload.notes.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        let batches = 8
        for batch in 0..<batches {
            try fixture.env.write { txn in
                for (index, entry) in secrets.enumerated() where index % batches == batch {
                    try txn.put(entry.value, forKey: entry.key, in: shares)
                }
                for (index, entry) in publics.enumerated() where index % batches == (batch + 3) % batches {
                    try txn.put(entry.value, forKey: entry.key, in: shares)
                }
                for (index, entry) in noteEntries.enumerated() where index % batches == batch {
                    try txn.put(entry.value, forKey: entry.key, in: notes)
                }
            }
        }
    }

    /// Overwrites every secret with zeros of the same size, commits, then
    /// deletes them and commits: what compaction of expired shares does.
    static func expire(_ secrets: [[UInt8]: [UInt8]], in fixture: Fixture) throws {
        let shares = fixture.shares
        let entries = secrets.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        try fixture.env.write { txn in
            for (key, value) in entries {
                try txn.put([UInt8](repeating: 0, count: value.count), forKey: key, in: shares)
            }
        }
        try fixture.env.write { txn in
            for (key, _) in entries { try txn.delete(key, in: shares) }
        }
    }

    /// Checks the store right after a scrub: every entry reads back, a further
    /// write reads back, and a second scrub, whose walk checks every page
    /// against LMDB's own counts, finds it consistent and nothing to zero.
    static func expectHealthy(_ fixture: Fixture, shares: [[UInt8]: [UInt8]], notes: [[UInt8]: [UInt8]]) throws {
        #expect(try fixture.contents(of: fixture.shares) == shares)
        #expect(try fixture.contents(of: fixture.notes) == notes)
        let counts = try fixture.env.read { txn in (try txn.count(in: fixture.shares), try txn.count(in: fixture.notes)) }
        #expect(counts == (shares.count, notes.count))
        let before = try fixture.rawFile()
        let again = try fixture.env.scrub()
        #expect(again.freePagesZeroed == 0 && again.gapBytesZeroed == 0 && again.overflowTailBytesZeroed == 0)
        #expect(try fixture.rawFile() == before)
        let extra = ScrubTests.publicValue(1, size: 3000)
        let notesDatabase = fixture.notes
        try fixture.env.write { txn in try txn.put(extra, forKey: Array("after-scrub".utf8), in: notesDatabase) }
        #expect(try fixture.env.read { txn in try txn.value(forKey: Array("after-scrub".utf8), in: notesDatabase) } == extra)
    }

    @Test func deletedValuesExistNowhereInTheFileAfterAScrub() throws {
        let fixture = try Fixture()
        let workload = Workload()
        try Self.write(workload, to: fixture)
        try Self.expire(workload.secrets, in: fixture)
        #expect(try fixture.fileContainsMarker(), "the test must see the stale bytes it is about")

        let report = try fixture.env.scrub()

        #expect(try !fixture.fileContainsMarker())
        #expect(report.freePagesZeroed > 0)
        #expect(report.freePagesDeferred == 0)
        #expect(report.gapBytesZeroed > 0)
        #expect(report.pagesWalked > 0)
        #expect(report.oldestReaderSnapshot == nil)
        try Self.expectHealthy(fixture, shares: workload.shares, notes: workload.notes)
        #expect(try !fixture.fileContainsMarker())
    }

    @Test func laterWritesDoNotBringDeletedBytesBack() throws {
        let fixture = try Fixture()
        let workload = Workload()
        try Self.write(workload, to: fixture)
        try Self.expire(workload.secrets, in: fixture)
        try fixture.env.scrub()
        // Without MDB_WRITEMAP, liblmdb copies pages into recycled buffers
        // that still hold secret bytes, and the first of these commits
        // writes them into the gaps of its pages.
        let shares = fixture.shares, notes = fixture.notes
        var expectedShares = workload.shares, expectedNotes = workload.notes
        for round in 0..<6 {
            let added = (0..<300).map { number in
                (Array("later-\(round)-\(number)".utf8), ScrubTests.publicValue(number, size: 50 + (number * 7 + round) % 900))
            }
            let removed = stride(from: round, to: 256, by: 6).map { ScrubTests.publicKey($0) }
            try fixture.env.write { txn in
                for (key, value) in added { try txn.put(value, forKey: key, in: notes) }
                for key in removed { try txn.delete(key, in: shares) }
            }
            for (key, value) in added { expectedNotes[key] = value }
            for key in removed { expectedShares[key] = nil }
            #expect(try !fixture.fileContainsMarker(), "round \(round)")
        }
        try fixture.env.scrub()
        try Self.expectHealthy(fixture, shares: expectedShares, notes: expectedNotes)
    }

    @Test func aLiveReaderKeepsItsSnapshotAndItsPagesWaitForTheNextScrub() throws {
        let fixture = try Fixture()
        let workload = Workload(smallSecrets: 120, largeSecrets: 8)
        try Self.write(workload, to: fixture)
        let env = fixture.env, shares = fixture.shares, secrets = workload.secrets
        let started = DispatchSemaphore(value: 0), scrubbed = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        let readerSaw = Locked<(before: Bool, after: Bool)?>(nil)
        Thread {
            let seen = try? env.read { txn in
                let before = try secrets.allSatisfy { try txn.value(forKey: $0.key, in: shares) == $0.value }
                started.signal()
                scrubbed.wait()
                let after = try secrets.allSatisfy { try txn.value(forKey: $0.key, in: shares) == $0.value }
                return (before, after)
            }
            readerSaw.withLock { $0 = seen }
            ended.signal()
        }.start()
        started.wait()
        try Self.expire(secrets, in: fixture)

        let first = try env.scrub()
        scrubbed.signal()
        ended.wait()

        #expect(first.freePagesDeferred > 0)
        #expect(first.oldestReaderSnapshot != nil)
        #expect(try fixture.fileContainsMarker(), "the reader's snapshot still holds the secrets")
        let saw = readerSaw.withLock { $0 }
        #expect(saw?.before == true)
        #expect(saw?.after == true, "the old snapshot reads its values after the scrub")

        let second = try env.scrub()
        #expect(second.freePagesDeferred == 0)
        #expect(second.freePagesZeroed > 0)
        #expect(second.oldestReaderSnapshot == nil)
        #expect(try !fixture.fileContainsMarker())
        try Self.expectHealthy(fixture, shares: workload.shares, notes: workload.notes)
    }

    @Test func aFreshStoreHasNothingToScrub() throws {
        let store = try Store()
        let report = try store.env.scrub()
        #expect(report.freePagesZeroed == 0 && report.gapBytesZeroed == 0 && report.overflowTailBytesZeroed == 0)
        #expect(report.unallocatedPagesZeroed == 0 && report.freePagesDeferred == 0)
        // The main database's one leaf page, which names "data".
        #expect(report.pagesWalked == 1)
    }

    @Test func aLargeDeletionWhoseFreeListRecordSpansPagesIsScrubbed() throws {
        let fixture = try Fixture()
        let shares = fixture.shares, notes = fixture.notes
        // Over 4,000 pages freed by one commit: the free list records them
        // in one IDL on overflow pages of its own.
        let secrets = Dictionary(uniqueKeysWithValues: (0..<1_400).map { (Self.secretKey($0), Self.secret($0, size: 9_000)) })
        let kept = Dictionary(uniqueKeysWithValues: (0..<300).map { (Self.publicKey($0), Self.publicValue($0, size: 700)) })
        try fixture.env.write { txn in
            for (key, value) in secrets { try txn.put(value, forKey: key, in: shares) }
            for (key, value) in kept { try txn.put(value, forKey: key, in: shares) }
        }
        try fixture.env.write { txn in
            for key in secrets.keys { try txn.delete(key, in: shares) }
            try txn.removeAll(in: notes)
        }
        #expect(try fixture.fileContainsMarker())
        let report = try fixture.env.scrub()
        #expect(report.freePagesZeroed > 4_000)
        #expect(try !fixture.fileContainsMarker())
        try Self.expectHealthy(fixture, shares: kept, notes: [:])
    }

    @Test func pagesPastTheLastPageAreZeroed() throws {
        let fixture = try Fixture()
        let workload = Workload(smallSecrets: 20, largeSecrets: 2)
        try Self.write(workload, to: fixture)
        try Self.expire(workload.secrets, in: fixture)
        try fixture.env.scrub()
        // What a transaction that spilled pages and then aborted leaves:
        // pages past the last one of the committed snapshot.
        let pageSize = try fixture.env.read { txn in try txn.statistics(of: fixture.notes).pageSize }
        let end = (fixture.env.info.lastPage + 1) * pageSize
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: fixture.directory.appending("data.mdb")))
        try handle.seek(toOffset: UInt64(end))
        try handle.write(contentsOf: Data(Self.secret(1, size: 3 * pageSize - 100)))
        try handle.close()
        #expect(try fixture.fileContainsMarker())

        let report = try fixture.env.scrub()

        #expect(report.unallocatedPagesZeroed == 3)
        #expect(try !fixture.fileContainsMarker())
        try Self.expectHealthy(fixture, shares: workload.shares, notes: workload.notes)
    }
}
