import Foundation
import LMDB
import Testing
import TestSupport
@testable import ShareLog

/// A read-only open (`Options.environment.readOnly`) writes nothing to the
/// store, whatever it finds, and says what it found: `upgradeRequired` for
/// a format-1 store, `unsupportedStoreVersion` for a newer one, and
/// `storeNotFound` where nothing was initialised (an empty `data.mdb`, or
/// an environment without this format's databases or a `schema`, as an
/// open killed half-way leaves it), as an open for writing would say.
/// The only file it may add is `lock.mdb`, LMDB's reader table
/// (`StoreFiles`).
@Suite struct ReadOnlyStoreOpeningTests {
    static var readOnly: ShareStore.Options {
        var options = ShareStore.Options()
        options.environment.readOnly = true
        return options
    }

    @Test func aFormat1StoreIsRefusedWithUpgradeRequiredAndLeftAsItWas() throws {
        let directory = TemporaryDirectory()
        let path = try Format1FixtureTests.copy(into: directory)
        let before = try StoreFiles(of: path)
        for _ in 1...2 {
            #expect(throws: ShareLogError.upgradeRequired(found: 1)) { try ShareStore.open(at: path, options: Self.readOnly) }
            #expect(try StoreFiles(of: path) == before.withLockFile)
        }
        // Opened for writing, it upgrades as before.
        #expect(try ShareStore.open(at: path).upgrade?.eventsReplayed == 10)
    }

    @Test func anEmptyDataFileIsNoStoreAndNothingIsMade() throws {
        let directory = TemporaryDirectory()
        let path = directory.appending("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: path + "/data.mdb", contents: Data()))
        #expect(throws: ShareLogError.storeNotFound(path: path)) { try ShareStore.open(at: path, options: Self.readOnly) }
        #expect(try StoreFiles(of: path).names == ["data.mdb"])
        #expect(try StoreFiles(of: path).files["data.mdb"] == Data())
    }

    /// An environment with none of the store's databases, or with `meta`
    /// alone and no `schema` in it: an open for writing was killed before
    /// it initialised the store.
    @Test(arguments: [[], ["meta"]] as [[String]])
    func anEnvironmentNeverInitialisedIsNoStore(databases: [String]) throws {
        let directory = TemporaryDirectory()
        let path = directory.appending("store")
        do { _ = try Environment.open(at: path, databases: databases) }
        let before = try StoreFiles(of: path)
        #expect(throws: ShareLogError.storeNotFound(path: path)) { try ShareStore.open(at: path, options: Self.readOnly) }
        #expect(try StoreFiles(of: path) == before)
    }

    /// A store of a newer format need not have this format's databases; a
    /// read-only open refuses it as newer all the same (or as damaged, for
    /// a `schema` that is no u32), not as a storage failure.
    @Test(arguments: [
        ([0, 0, 0, 4], ShareLogError.unsupportedStoreVersion(found: 4, supported: 3)),
        ([0, 3], ShareLogError.corruptMeta("schema")),
    ] as [([UInt8], ShareLogError)])
    func aNewerFormatWithoutThisFormatsDatabasesIsRefusedForWhatItIs(schema: [UInt8], refusal: ShareLogError) throws {
        let directory = TemporaryDirectory()
        let path = directory.appending("store")
        do {
            let environment = try Environment.open(at: path, databases: ["meta", "log"])
            let meta = try environment.database("meta")
            try environment.write { txn in
                try txn.put(schema, forKey: Array("schema".utf8), in: meta)
                try txn.put(ReplicaID.random().bytes, forKey: Array("replica".utf8), in: meta)
                try txn.put(Epoch.random().bytes, forKey: Array("epoch".utf8), in: meta)
            }
        }
        let before = try StoreFiles(of: path)
        #expect(throws: refusal) { try ShareStore.open(at: path, options: Self.readOnly) }
        #expect(try StoreFiles(of: path) == before)
    }

    /// A copy in a new home, without the high-water file: opened read-only
    /// it keeps its id and gets no file; opened for writing, it renews.
    @Test func aCopyOpenedReadOnlyKeepsItsIdentityAndGetsNoHighWaterFile() throws {
        let directory = TemporaryDirectory()
        let original = try ShareStore.open(at: directory.appending("original"), creatingIfMissing: true)
        _ = try original.create(vCard: smallCard(1))
        let copy = directory.appending("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: original.path + "/data.mdb", toPath: copy + "/data.mdb")
        let before = try StoreFiles(of: copy)
        do {
            let store = try ShareStore.open(at: copy, options: Self.readOnly)
            #expect(store.identityRenewal == nil)
            #expect(store.upgrade == nil)
            #expect(store.replicaID == original.replicaID)
            #expect(try store.stats().events == 1)
        }
        #expect(try StoreFiles(of: copy) == before.withLockFile)
        let written = try ShareStore.open(at: copy)
        #expect(written.identityRenewal != nil)
        #expect(written.replicaID != original.replicaID)
    }
}
