import CLMDB
import Testing
@testable import LMDB

@Suite struct ErrorTests {
    @Test func errorsMatchByCaseWhateverTheirContext() {
        let error: any Error = LMDBError(code: MDB_MAP_FULL, context: "mdb_put on 'log'")
        var matched = false
        do { throw error } catch LMDBError.mapFull { matched = true } catch {}
        #expect(matched)
        #expect(LMDBError(code: MDB_NOTFOUND, context: "x") == .notFound)
        #expect(LMDBError(code: MDB_NOTFOUND) != .keyExists)
    }

    @Test func descriptionsSayWhereWhatAndWhatToDo() {
        let full = LMDBError(code: MDB_MAP_FULL, context: "mdb_put on 'log'")
        #expect(full.description.hasPrefix("mdb_put on 'log': MDB_MAP_FULL"))
        #expect(full.description.contains("maxMapSize"))
        #expect(LMDBError(code: MDB_READERS_FULL).description.contains("maxReaders"))
        #expect(LMDBError.nestedWrite.description.contains("same thread"))
        #expect(LMDBError(code: 28 /* ENOSPC */).description.contains("disk space"))
    }

    @Test func everyNamedErrorHasItsOwnCode() {
        let all: [LMDBError] = [
            .keyExists, .notFound, .corrupted, .panic, .versionMismatch, .invalid, .mapFull, .databasesFull,
            .readersFull, .transactionFull, .mapResized, .incompatible, .badTransaction, .badValueSize,
            .badKeySize, .nestedWrite, .forkedProcess, .alreadyOpen, .readOnly, .foreignDatabase, .unknownDatabase,
        ]
        #expect(Set(all.map(\.code)).count == all.count)
    }
}
