import TestSupport
import CLMDB
import Foundation
import Testing
@testable import LMDB

@Suite struct EnvironmentTests {
    @Test func opensWithNoTLSAndWithoutWriteMapAndDurableByDefault() throws {
        let dir = TemporaryDirectory()
        let env = try Environment.open(at: dir.path, databases: ["data"])
        #expect(env.flags & UInt32(MDB_NOTLS) != 0)
        #expect(env.flags & UInt32(MDB_WRITEMAP) == 0)
        #expect(env.flags & UInt32(MDB_NOSYNC | MDB_NOMETASYNC) == 0)
        #expect(Environment.Options().durability == .full)
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
