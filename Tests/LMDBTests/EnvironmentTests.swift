import CLMDB
import Foundation
import TestSupport
import Testing
@testable import LMDB
import TestTraits

@Suite(.hangDeadline) struct EnvironmentTests {
    @Test func opensWithNoTLSAndWriteMapAndDurableByDefault() throws {
        let dir = TemporaryDirectory()
        let env = try Environment.open(at: dir.path, databases: ["data"])
        #expect(env.flags & UInt32(MDB_NOTLS) != 0)
        #expect(env.flags & UInt32(MDB_WRITEMAP) != 0)
        #expect(env.flags & UInt32(MDB_NOSYNC | MDB_NOMETASYNC) == 0)
        #expect(Environment.Options().durability == .full)
    }

    @Test func opensReadOnlyWithoutWriteMap() throws {
        let dir = TemporaryDirectory()
        _ = try Environment.open(at: dir.path, databases: ["data"])
        var options = Environment.Options()
        options.readOnly = true
        let env = try Environment.open(at: dir.path, databases: ["data"], options: options)
        #expect(env.flags & UInt32(MDB_WRITEMAP) == 0)
        #expect(env.flags & UInt32(MDB_RDONLY) != 0)
    }

    @Test func appliesMapSizeAndReaderLimits() throws {
        let dir = TemporaryDirectory()
        var options = Environment.Options()
        options.mapSize = 8 << 20
        options.maxReaders = 40
        let env = try Environment.open(at: dir.path, databases: ["data"], options: options)
        #expect(env.info.mapSize == 8 << 20)
        #expect(env.info.maxReaders == 40)
    }

    @Test func nestedReadsOnOneThreadWorkBecauseOfNoTLS() throws {
        // Without MDB_NOTLS, the inner read fails with MDB_BAD_RSLOT.
        let dir = TemporaryDirectory()
        let env = try Environment.open(at: dir.path, databases: ["data"])
        let data = try env.database("data")
        try env.write { txn in try txn.put([1], forKey: [1], in: data) }
        let inner = try env.read { _ in try env.read { txn in try txn.value(forKey: [1], in: data) } }
        #expect(inner == [1])
    }

    @Test func closesItsFilesWhenReleased() throws {
        let dir = TemporaryDirectory()
        do {
            let env = try Environment.open(at: dir.path, databases: ["data"])
            let data = try env.database("data")
            try env.write { txn in try txn.put([1], forKey: [1], in: data) }
            #expect(!dir.openFileDescriptors().isEmpty)
        }
        #expect(dir.openFileDescriptors().isEmpty)
        // And the directory can be opened again, even with other databases.
        let again = try Environment.open(at: dir.path, databases: ["data", "other"])
        #expect(try again.read { txn in try txn.value(forKey: [1], in: again.database("data")) } == [1])
    }

    @Test func closesItsFilesWhenOpeningFails() throws {
        let dir = TemporaryDirectory()
        // Not an LMDB file: mdb_env_open fails after opening both files.
        try Data(repeating: 0xAB, count: 64 << 10).write(to: URL(fileURLWithPath: dir.appending("data.mdb")))
        for _ in 0..<20 {
            #expect(throws: LMDBError.invalid) { try Environment.open(at: dir.path, databases: ["data"]) }
        }
        #expect(dir.openFileDescriptors().isEmpty)
    }

    @Test func closesItsFilesWhenADatabaseCannotBeOpened() throws {
        let dir = TemporaryDirectory()
        _ = try Environment.open(at: dir.path, databases: ["data"])
        var options = Environment.Options()
        options.readOnly = true
        // A read-only open cannot create the missing database.
        #expect(throws: LMDBError.notFound) {
            try Environment.open(at: dir.path, databases: ["data", "missing"], options: options)
        }
        #expect(dir.openFileDescriptors().isEmpty)
    }

    @Test func readOnlyEnvironmentRefusesWrites() throws {
        let dir = TemporaryDirectory()
        do {
            let env = try Environment.open(at: dir.path, databases: ["data"])
            let data = try env.database("data")
            try env.write { txn in try txn.put([7], forKey: [7], in: data) }
        }
        var options = Environment.Options()
        options.readOnly = true
        let env = try Environment.open(at: dir.path, databases: ["data"], options: options)
        let data = try env.database("data")
        #expect(try env.read { txn in try txn.value(forKey: [7], in: data) } == [7])
        #expect(throws: LMDBError.readOnly) { try env.write { txn in try txn.put([8], forKey: [8], in: data) } }
    }

    @Test func missingReadOnlyDirectoryIsAClearError() throws {
        let dir = TemporaryDirectory()
        var options = Environment.Options()
        options.readOnly = true
        let error = #expect(throws: LMDBError.self) {
            try Environment.open(at: dir.appending("absent"), databases: ["data"], options: options)
        }
        #expect(error?.code == ENOENT)
        #expect(error?.description.contains("absent") == true)
    }

    @Test func createsFilesReadableOnlyByTheOwner() throws {
        let dir = TemporaryDirectory()
        _ = try Environment.open(at: dir.path, databases: ["data"])
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.appending("data.mdb"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}

@Suite(.hangDeadline) struct EnvironmentFailureTests {
    @Test func freesTheHandleWhenOpeningFails() throws {
        // mdb_env_open closes the files itself when it fails, so only the
        // heap shows whether the MDB_env was closed. Measured in a probe,
        // because other tests allocate in this process.
        let dir = TemporaryDirectory()
        try Data(repeating: 0xAB, count: 64 << 10).write(to: URL(fileURLWithPath: dir.appending("data.mdb")))
        let result = try Probe.run("failed-opens", dir.path, "1000")
        #expect(result.status == 0)
        let leaked = result.lastLine.flatMap { $0.split(separator: "=").last.flatMap { Int($0) } }
        #expect(leaked != nil && leaked! < 64, "heap bytes kept per failed open: \(result.lastLine ?? "none")")
    }

    /// Stores `key` as a plain value in the unnamed main database, so that
    /// opening a database of that name fails with MDB_INCOMPATIBLE inside
    /// the open's write transaction.
    static func putPlainKey(_ key: String, inMainDatabaseAt path: String) throws {
        var env: OpaquePointer?
        try #require(mdb_env_create(&env) == MDB_SUCCESS)
        defer { mdb_env_close(env) }
        try #require(mdb_env_open(env, path, UInt32(MDB_NOTLS), 0o600) == MDB_SUCCESS)
        var txn: OpaquePointer?
        try #require(mdb_txn_begin(env, nil, 0, &txn) == MDB_SUCCESS)
        var dbi = MDB_dbi()
        try #require(mdb_dbi_open(txn, nil, 0, &dbi) == MDB_SUCCESS)
        var bytes = Array(key.utf8), one: [UInt8] = [1]
        let rc = bytes.withUnsafeMutableBytes { k in
            one.withUnsafeMutableBytes { v in
                var key = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                var value = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                return mdb_put(txn, dbi, &key, &value, 0)
            }
        }
        try #require(rc == MDB_SUCCESS)
        try #require(mdb_txn_commit(txn) == MDB_SUCCESS)
    }

    @Test func aDatabaseThatCannotBeOpenedLeavesNoWriteLockBehind() throws {
        let dir = TemporaryDirectory()
        try Self.putPlainKey("clash", inMainDatabaseAt: dir.path)
        // Another process keeps the lock file in use, so a write lock left
        // held stays held.
        let holder = try Probe("hold-read", dir.path)
        defer { holder.kill() }
        #expect(holder.readLine() == "ready")
        #expect(throws: LMDBError.incompatible) { try Environment.open(at: dir.path, databases: ["clash"]) }
        // In a probe, so a leaked lock fails the test instead of hanging it.
        let writer = try Probe("grow", dir.path, "4096")
        let deadline = Date().addingTimeInterval(10)
        while writer.process.isRunning && Date() < deadline { usleep(10_000) }
        let finished = !writer.process.isRunning
        if !finished { writer.kill() }
        #expect(finished, "another process's write waited for the write lock of the failed open")
        #expect(writer.process.terminationStatus == 0)
    }
}
