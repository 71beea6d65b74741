import Foundation
import LMDB
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

/// Opening a store this build must not write: one of a newer format
/// (docs/FORMAT.md: "A reader must refuse a `schema` greater than the
/// version it knows"), and one opened read-only
/// (`Options.environment.readOnly`, the only read-only mode ShareLog has).
@Suite(.ownThread) struct StoreOpeningTests {
    /// Makes a store at `path` with the CLI, so that no environment of it
    /// is open in this process: one share due at 2027-01-15T08:01:00Z and
    /// one live for a week. Returns the live one's id.
    static func makeStore(at path: String) throws -> RecordName {
        let cli = CLI(store: path, now: "2027-01-15T08:00:00Z")
        #expect(try cli.run("init").status == 0)
        #expect(try cli.run("share", "create", "-", "--ttl", "1m", input: Data(smallCard(2))).status == 0)
        let live = try cli.run("share", "create", "-", "--json", input: Data(smallCard(1)))
        let id = try #require(live.json["id"] as? String)
        return try #require(RecordName(id))
    }

    /// Stores `version` as the `schema` entry of `meta`, through the LMDB
    /// module alone: a u32, big-endian (docs/FORMAT.md).
    static func setSchema(_ version: [UInt8], at path: String) throws {
        let environment = try Environment.open(at: path, databases: Schema.names)
        let meta = try environment.database("meta")
        try environment.write { txn in try txn.put(version, forKey: Array("schema".utf8), in: meta) }
    }

    static func dataFile(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: (path as NSString).appendingPathComponent("data.mdb")))
    }

    @Test(arguments: [([0, 0, 0, 4], 4), ([0xFF, 0xFF, 0xFF, 0xFF], 4_294_967_295)] as [([UInt8], UInt32)])
    func aStoreOfANewerFormatIsRefusedAndLeftAlone(schema: [UInt8], found: UInt32) throws {
        let dir = TemporaryDirectory()
        let path = dir.appending("store")
        _ = try Self.makeStore(at: path)
        try Self.setSchema(schema, at: path)
        let before = try Self.dataFile(path)
        let refusal = ShareLogError.unsupportedStoreVersion(found: found, supported: 3)
        #expect(throws: refusal) { try ShareStore.open(at: path) }
        #expect(throws: refusal) { try ShareStore.open(at: path, creatingIfMissing: true) }
        #expect(refusal.description == "the store has format \(found) but this build reads up to 3; upgrade ShareLog")
        #expect(try Self.dataFile(path) == before)
    }

    /// A `schema` entry that is not a u32 says no version at all: the store
    /// is damaged, and is refused rather than read as some version.
    @Test(arguments: [[0, 0, 0, 0, 0, 0, 0, 1], [1], []] as [[UInt8]])
    func aSchemaEntryThatIsNotAU32IsRefusedAsCorrupt(schema: [UInt8]) throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        _ = try Self.makeStore(at: cli.store)
        try Self.setSchema(schema, at: cli.store)
        #expect(throws: ShareLogError.corruptMeta("schema")) { try ShareStore.open(at: cli.store) }
        let result = try cli.run("stats")
        #expect(result.status == 1)
        #expect(result.error == "sharelog: the store's 'schema' entry is corrupt; restore from a replica\n")
    }

    @Test func theCLIRefusesAStoreOfANewerFormatWithExitOneAndWritesNothing() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        let live = try Self.makeStore(at: cli.store)
        try Self.setSchema([0, 0, 0, 4], at: cli.store)
        let before = try cli.dataFile()
        for arguments in [
            ["stats"], ["init"], ["upgrade"], ["share", "get", "\(live)"], ["share", "revoke", "\(live)"],
            ["sweep"], ["compact"], ["verify"], ["log"], ["share", "create", "-"],
        ] {
            let result = try cli.run(arguments: arguments, input: Data(smallCard(3)))
            #expect(result.status == 1, "\(arguments)")
            #expect(result.error == "sharelog: the store has format 4 but this build reads up to 3; upgrade ShareLog\n", "\(arguments)")
            #expect(result.output == "", "\(arguments)")
        }
        #expect(try cli.dataFile() == before)
    }

    @Test func aStoreOpenedReadOnlyAnswersReadsAndRefusesEveryWrite() throws {
        let dir = TemporaryDirectory()
        let path = dir.appending("store")
        let live = try Self.makeStore(at: path)
        let before = try Self.dataFile(path)
        var options = ShareStore.Options()
        options.environment.readOnly = true
        options.clock = FixedClock(Timestamp(milliseconds: 1_800_000_120_000))
        let store = try ShareStore.open(at: path, options: options)
        // 2027-01-15T08:00:00Z and a week later.
        let share = Share(
            recordName: live, vCard: smallCard(1), createdAt: Timestamp(milliseconds: 1_800_000_000_000),
            expiresAt: Timestamp(milliseconds: 1_800_604_800_000))
        #expect(try store.fetch(live) == .live(share))
        #expect(try store.fetch(link: "https://cards.example.com/appclip?id=\(live)") == .live(share))
        let stats = try store.stats()
        #expect((stats.events, stats.live, stats.due, stats.expired) == (2, 2, 1, 0))
        #expect(try store.events(after: 0).map(\.position) == [1, 2])
        #expect(try store.verify().isConsistent)

        let foreign = ForeignReplica().created(at: Timestamp(milliseconds: 1_800_000_000_000), ttl: .seconds(3600))
        #expect(throws: ShareLogError.storage(.readOnly)) { try store.create(vCard: smallCard(4)) }
        #expect(throws: ShareLogError.storage(.readOnly)) { try store.create(vCards: [smallCard(4)]) }
        #expect(throws: ShareLogError.storage(.readOnly)) { try store.revoke(live) }
        #expect(throws: ShareLogError.storage(.readOnly)) { try store.sweep() }
        #expect(throws: ShareLogError.storage(.readOnly)) { try store.compact() }
        #expect(throws: ShareLogError.storage(.readOnly)) { try store.apply([foreign]) }
        #expect(try Self.dataFile(path) == before)
        #expect(try store.stats().events == 2)
    }

    @Test func aReadOnlyOpenOfAMissingStoreCreatesNothing() throws {
        let dir = TemporaryDirectory()
        let path = dir.appending("store")
        var options = ShareStore.Options()
        options.environment.readOnly = true
        #expect(throws: ShareLogError.storeNotFound(path: path)) { try ShareStore.open(at: path, options: options) }
        let refusal = #expect(throws: ShareLogError.self) { try ShareStore.open(at: path, creatingIfMissing: true, options: options) }
        #expect(refusal.map { if case .storage(.init(code: ENOENT)) = $0 { true } else { false } } == true, "\(String(describing: refusal))")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFileWhereTheStoreShouldGoIsAStorageErrorWithNothingCreated() throws {
        let dir = TemporaryDirectory()
        let file = dir.appending("file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("not a store".utf8)))
        #expect(throws: ShareLogError.storage(LMDBError(code: ENOTDIR))) {
            try ShareStore.open(at: file + "/store", creatingIfMissing: true)
        }
        #expect(throws: ShareLogError.storage(LMDBError(code: ENOTDIR))) {
            try ShareStore.open(at: file, creatingIfMissing: true)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("not a store".utf8))
    }
}
