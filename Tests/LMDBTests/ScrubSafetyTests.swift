import CLMDB
import Dispatch
import Foundation
import Glibc
import LMDBScrub
import TestSupport
import Testing
@testable import LMDB
import TestTraits
import SharePrimitives

/// Scrub beside other work: its own transaction, nesting, foreign
/// databases, the reader list, and concurrent writers and readers.
@Suite(.hangDeadline, .ownThread) struct ScrubSafetyTests {
    typealias Fixture = ScrubTests.Fixture

    @Test func aScrubRunsInATransactionOfItsOwn() async throws {
        let fixture = try Fixture()
        let env = fixture.env, notes = fixture.notes
        // Hold the writer so that a write, a scrub and a write queue up.
        let hold = try await WriterHold(env)
        /// Writes `key` and returns the id of the transaction it ran in.
        @Sendable func put(_ key: UInt8) async throws -> Int {
            try await env.write { txn in
                try txn.put([key], forKey: [key], in: notes)
                return mdb_txn_id(txn.pointer)
            }
        }
        let before = Task { try await put(1) }
        try await Deadline.wait(until: "the first put queues") { env.writerQueueLength >= 1 }
        let scrub = Task { try await env.scrub() }
        try await Deadline.wait(until: "the scrub queues") { env.writerQueueLength >= 2 }
        let after = Task { try await put(2) }
        try await Deadline.wait(until: "the second put queues") { env.writerQueueLength >= 3 }
        try await hold.release()
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
                                    if !Self.isIntact(Array(entry.value)) {
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
        // However the writes below end, the workers stop and are joined.
        defer {
            stop.increment()
            workers.wait()
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
        var generator = SeededGenerator(seed: 11)
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
                    changes.append((key, Self.intactValue(version: round, secret: number % 2 == 0, size: size)))
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
                try txn.put(Self.intactValue(version: round, secret: false, size: 40), forKey: [UInt8(round)], in: notes)
            }
        }
        stop.increment()
        workers.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(reports.withLock { !$0.isEmpty })
        #expect(try fixture.contents(of: shares) == model)

        let secrets = model.filter { $0.value[8] == 1 }
        #expect(!secrets.isEmpty)
        try ScrubTests.expire(secrets, in: fixture)
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
