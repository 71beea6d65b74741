internal import CLMDB
import LMDB

/// The newest of `data.mdb`'s two meta pages: the root of the last committed
/// snapshot.
///
/// `MDB_meta` follows the page header: `mm_magic` (4), `mm_version` (4),
/// `mm_address` (8), `mm_mapsize` (8), the free list's and the main
/// database's `MDB_db` (48 each; the free list's `md_pad` is the page size),
/// `mm_last_pg` (8) and `mm_txnid` (8). LMDB reads both meta pages and uses
/// the one with the larger `mm_txnid` (`mdb_env_read_header`).
struct MetaPage {
    /// Where `MDB_meta` starts in its page.
    private static let start = PageLayout.headerSize
    /// `sizeof(MDB_meta)` with 64-bit page numbers and pointers.
    private static let size = 136

    let pageSize: Int
    /// `mm_txnid`: the transaction that committed this snapshot.
    let transactionID: UInt64
    /// `mm_last_pg`: the last page in use; pages past it belong to no snapshot.
    let lastPage: UInt64
    /// The free list (`FREE_DBI`).
    let freeList: DatabaseRecord
    /// The main database (`MAIN_DBI`), whose records name the other databases.
    let main: DatabaseRecord

    private init(_ page: UnsafeRawBufferPointer) {
        pageSize = Int(PageLayout.load(UInt32.self, page, at: Self.start + 24))
        freeList = DatabaseRecord(page, at: Self.start + 24)
        main = DatabaseRecord(page, at: Self.start + 72)
        lastPage = PageLayout.load(UInt64.self, page, at: Self.start + 120)
        transactionID = PageLayout.load(UInt64.self, page, at: Self.start + 128)
    }

    /// Reads both meta pages of `file` and returns the newer one.
    ///
    /// - Parameter pageSize: `ms_psize` from `mdb_env_stat`; each meta page
    ///   must record the same.
    /// - Throws: `LMDBError.invalid` when a page is not a meta page or lacks
    ///   `MDB_MAGIC`, `LMDBError.versionMismatch` for a data version other
    ///   than LMDB 0.9's; nothing is written either way.
    static func newest(in file: borrowing DataFile, pageSize: Int, context: String) throws(LMDBError) -> MetaPage {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: start + size, alignment: 8)
        defer { buffer.deallocate() }
        var newest: MetaPage?
        for number in 0..<PageLayout.metaPageCount {
            try file.readFully(into: buffer, at: number * pageSize)
            let page = UnsafeRawBufferPointer(buffer)
            let flags = PageLayout.load(UInt16.self, page, at: PageLayout.flagsOffset)
            let pageNumber = PageLayout.load(UInt64.self, page, at: PageLayout.pageNumberOffset)
            guard flags & PageLayout.metaPage != 0, pageNumber == UInt64(number) else {
                throw LMDBError(code: MDB_INVALID, context: "\(context): page \(number) is not a meta page")
            }
            let magic = PageLayout.load(UInt32.self, page, at: start)
            guard magic == PageLayout.magic else {
                throw LMDBError(
                    code: MDB_INVALID,
                    context: "\(context): meta page \(number) has magic 0x\(String(magic, radix: 16)), not 0xbeefc0de")
            }
            let version = PageLayout.load(UInt32.self, page, at: start + 4)
            guard version == PageLayout.dataVersion else {
                throw LMDBError(
                    code: MDB_VERSION_MISMATCH,
                    context: "\(context): meta page \(number) has data version \(version); scrub knows version 1 (LMDB 0.9)")
            }
            let meta = MetaPage(page)
            guard meta.pageSize == pageSize else {
                throw LMDBError(
                    code: MDB_INVALID,
                    context: "\(context): meta page \(number) records page size \(meta.pageSize), LMDB uses \(pageSize)")
            }
            if newest.map({ meta.transactionID > $0.transactionID }) ?? true { newest = meta }
        }
        return newest!
    }
}
