import CLMDB
import Dispatch
import Foundation
import Glibc
import TestSupport
import Testing
@testable import LMDB

@Suite struct ScrubTests {
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
            var generator = SplitMix(seed: 7)
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

    /// A small deterministic generator, so failures reproduce.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
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
        #expect(report.pageBuffersCleared > 0)
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
        // Without clearing liblmdb's recycled page buffers, the first of
        // these commits writes secret bytes into the gaps of its pages.
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

    @Test func aScrubRunsInATransactionOfItsOwn() async throws {
        let fixture = try Fixture()
        let env = fixture.env, notes = fixture.notes
        // Hold the writer so that a write, a scrub and a write queue up.
        let gate = DispatchSemaphore(value: 0)
        let holding = Counter()
        let blocker = Task {
            try await env.write { _ in
                holding.increment()
                gate.wait()
            }
        }
        while holding.count == 0 { try await Task.sleep(for: .milliseconds(1)) }
        /// Writes `key` and returns the id of the transaction it ran in.
        @Sendable func put(_ key: UInt8) async throws -> Int {
            try await env.write { txn in
                try txn.put([key], forKey: [key], in: notes)
                return mdb_txn_id(txn.pointer)
            }
        }
        let before = Task { try await put(1) }
        while env.writerQueueLength < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let scrub = Task { try await env.scrub() }
        while env.writerQueueLength < 2 { try await Task.sleep(for: .milliseconds(1)) }
        let after = Task { try await put(2) }
        while env.writerQueueLength < 3 { try await Task.sleep(for: .milliseconds(1)) }
        gate.signal()
        try await blocker.value
        let (first, second) = (try await before.value, try await after.value)
        _ = try await scrub.value
        // Grouped, all three would share one transaction id.
        #expect(first != second)
        #expect(try fixture.contents(of: notes) == [[1]: [1], [2]: [2]])
    }

    @Test func aScrubInsideAWriteThrowsInsteadOfDeadlocking() throws {
        let fixture = try Fixture()
        let env = fixture.env
        let inner = try env.write { _ -> LMDBError? in
            do {
                try env.scrub()
                return nil
            } catch let error as LMDBError {
                return error
            }
        }
        #expect(inner == .nestedWrite)
    }

    @Test func aDatabaseWithSortedDuplicatesIsRefusedAndNothingIsWritten() throws {
        let directory = TemporaryDirectory()
        // Another program made a DUPSORT database in the same file.
        var raw: OpaquePointer?
        #expect(mdb_env_create(&raw) == MDB_SUCCESS)
        #expect(mdb_env_set_maxdbs(raw, 4) == MDB_SUCCESS)
        #expect(mdb_env_open(raw, directory.path, 0, 0o600) == MDB_SUCCESS)
        var txn: OpaquePointer?
        var dbi = MDB_dbi()
        #expect(mdb_txn_begin(raw, nil, 0, &txn) == MDB_SUCCESS)
        #expect(mdb_dbi_open(txn, "tags", UInt32(MDB_CREATE | MDB_DUPSORT), &dbi) == MDB_SUCCESS)
        for tag in ["a", "b"] {
            var key = Array("k".utf8), value = Array(tag.utf8)
            key.withUnsafeMutableBytes { key in
                value.withUnsafeMutableBytes { value in
                    var k = MDB_val(mv_size: key.count, mv_data: key.baseAddress)
                    var v = MDB_val(mv_size: value.count, mv_data: value.baseAddress)
                    #expect(mdb_put(txn, dbi, &k, &v, 0) == MDB_SUCCESS)
                }
            }
        }
        #expect(mdb_txn_commit(txn) == MDB_SUCCESS)
        mdb_env_close(raw)

        let env = try Environment.open(at: directory.path, databases: ["data"])
        let data = try env.database("data")
        try env.write { txn in try txn.put(ScrubTests.secret(1, size: 1000), forKey: [1], in: data) }
        _ = try env.write { txn in try txn.delete([1], in: data) }
        let file = URL(fileURLWithPath: directory.appending("data.mdb"))
        let before = try Data(contentsOf: file)
        let error = #expect(throws: LMDBError.incompatible) { try env.scrub() }
        #expect(error?.description.contains("'tags'") == true)
        #expect(try Data(contentsOf: file) == before)
    }

    @Test func theReaderListIsParsedOrRefused() throws {
        let none = try ReaderTable(listing: "(no active readers)\n", context: "test")
        #expect(none.oldestSnapshot == nil)
        let listing = """
                pid     thread     txnid
                 4242 7f3a5c1ff6c0 57
                 4242 7f3a5c9ff6c0 -
                 4243 7f3a5d1ff6c0 55

            """
        #expect(try ReaderTable(listing: listing, context: "test").oldestSnapshot == 55)
        #expect(throws: LMDBError.incompatible) { try ReaderTable(listing: "(no reader locks)\n", context: "test") }
        #expect(throws: LMDBError.incompatible) { try ReaderTable(listing: "4242 7f3a x\n", context: "test") }
    }

    @Test func scrubsDuringConcurrentWritesAndReadsKeepEveryEntry() throws {
        let fixture = try Fixture()
        let env = fixture.env, shares = fixture.shares, notes = fixture.notes
        let stop = Counter()
        let failures = Locked<[String]>([])
        let workers = DispatchGroup()
        /// Runs `body` on a thread of its own: the workers block, and
        /// Dispatch's pool on a two-core machine would run them one by one.
        func startWorker(_ body: @escaping @Sendable () -> Void) {
            workers.enter()
            Thread {
                body()
                workers.leave()
            }.start()
        }
        // Readers check that every value is intact, one of them holding its
        // snapshot for a while so that scrubs defer pages.
        for reader in 0..<2 {
            startWorker {
                while stop.count == 0 {
                    do {
                        try env.read { txn in
                            for database in [shares, notes] {
                                try txn.scan(database) { entry in
                                    if !ScrubTests.isIntact(Array(entry.value)) {
                                        failures.withLock { $0.append("torn value under \(Array(entry.key))") }
                                    }
                                    return .proceed
                                }
                            }
                            if reader == 0 { usleep(20_000) }
                        }
                    } catch {
                        failures.withLock { $0.append("read: \(error)") }
                    }
                }
            }
        }
        let reports = Locked<[ScrubReport]>([])
        startWorker {
            while stop.count == 0 {
                do {
                    let report = try env.scrub()
                    reports.withLock { $0.append(report) }
                } catch {
                    failures.withLock { $0.append("scrub: \(error)") }
                }
            }
        }
        // One writer, so the expected contents are known.
        var generator = SplitMix(seed: 11)
        var model: [[UInt8]: [UInt8]] = [:]
        for round in 0..<40 {
            // Puts, and deletes (a nil value), in order.
            var changes: [(key: [UInt8], value: [UInt8]?)] = []
            for _ in 0..<30 {
                let number = Int(generator.next() % 400)
                let key = number % 2 == 0 ? ScrubTests.secretKey(number) : ScrubTests.publicKey(number)
                if generator.next() % 4 == 0, model[key] != nil {
                    changes.append((key, nil))
                } else {
                    let large = generator.next() % 10 == 0
                    let size = large ? 5_000 + Int(generator.next() % 70_000) : 1 + Int(generator.next() % 1_800)
                    changes.append((key, ScrubTests.intactValue(version: round, secret: number % 2 == 0, size: size)))
                }
                model[key] = changes[changes.count - 1].value
            }
            try env.write { [changes] txn in
                for change in changes {
                    if let value = change.value {
                        try txn.put(value, forKey: change.key, in: shares)
                    } else {
                        try txn.delete(change.key, in: shares)
                    }
                }
                try txn.put(ScrubTests.intactValue(version: round, secret: false, size: 40), forKey: [UInt8(round)], in: notes)
            }
        }
        stop.increment()
        workers.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(reports.withLock { !$0.isEmpty })
        #expect(try fixture.contents(of: shares) == model)

        let secrets = model.filter { $0.value[8] == 1 }
        #expect(!secrets.isEmpty)
        try Self.expire(secrets, in: fixture)
        try env.scrub()
        #expect(try !fixture.fileContainsMarker())
    }

    /// A value that carries its version and kind, so that a reader can tell
    /// it is intact; a secret's body repeats the marker.
    static func intactValue(version: Int, secret: Bool, size: Int) -> [UInt8] {
        let body = secret ? ScrubTests.secret(version, size: size) : ScrubTests.publicValue(version, size: size)
        return withUnsafeBytes(of: UInt64(version).littleEndian) { Array($0) } + [secret ? 1 : 0] + body
    }

    static func isIntact(_ value: [UInt8]) -> Bool {
        guard value.count >= 9, value[8] <= 1 else { return false }
        let version = Int(value.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }.littleEndian)
        return intactValue(version: version, secret: value[8] == 1, size: value.count - 9) == value
    }
}
