internal import CLMDB
import LMDB

/// An `MDB_db` as LMDB 0.9 stores it: a database's root page and counts.
///
/// The free list's and the main database's records sit in each meta page; a
/// named database's record is the value of its key in the main database.
/// The 48 bytes are `md_pad` (4), `md_flags` (2), `md_depth` (2), then 8
/// bytes each for `md_branch_pages`, `md_leaf_pages`, `md_overflow_pages`,
/// `md_entries` and `md_root`.
struct DatabaseRecord {
    /// `sizeof(MDB_db)` with 64-bit page numbers.
    static let size = 48

    /// `md_flags`: the flags given to `mdb_dbi_open`, or for the free list
    /// the environment's persistent flags.
    let flags: UInt16
    let depth: Int
    let branchPages: Int
    let leafPages: Int
    let overflowPages: Int
    let entries: Int
    /// `PageLayout.invalidPage` for an empty database.
    let root: UInt64

    /// Reads the record at `offset` in `bytes`; the caller checked that
    /// `size` bytes are there.
    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        flags = PageLayout.load(UInt16.self, bytes, at: offset + 4)
        depth = Int(PageLayout.load(UInt16.self, bytes, at: offset + 6))
        branchPages = Int(truncatingIfNeeded: PageLayout.load(UInt64.self, bytes, at: offset + 8))
        leafPages = Int(truncatingIfNeeded: PageLayout.load(UInt64.self, bytes, at: offset + 16))
        overflowPages = Int(truncatingIfNeeded: PageLayout.load(UInt64.self, bytes, at: offset + 24))
        entries = Int(truncatingIfNeeded: PageLayout.load(UInt64.self, bytes, at: offset + 32))
        root = PageLayout.load(UInt64.self, bytes, at: offset + 40)
    }

    /// True when a database holds sorted duplicates, which scrub does not
    /// walk (sub-pages and sub-databases inside leaf nodes).
    var hasDuplicates: Bool { flags & UInt16(MDB_DUPSORT) != 0 }

    /// True when `stat`, LMDB's own view through `mdb_stat`, reports the
    /// same tree.
    func matches(_ stat: MDB_stat) -> Bool {
        depth == Int(stat.ms_depth) && branchPages == stat.ms_branch_pages && leafPages == stat.ms_leaf_pages
            && overflowPages == stat.ms_overflow_pages && entries == stat.ms_entries
    }

    /// The counts as text, for error messages.
    var summary: String {
        "depth \(depth), \(branchPages) branch, \(leafPages) leaf, \(overflowPages) overflow pages, \(entries) entries"
    }
}
