import LMDB
/// LMDB 0.9's on-disk page format, as `mdb.c` of liblmdb 0.9.x defines it
/// (the same from 0.9.24 to 0.9.36), reduced to what `Environment.scrub`
/// reads.
///
/// The format is private to liblmdb; scrub relies on it only after checking,
/// at run time, that the library is 0.9 on a 64-bit little-endian host and
/// that the meta pages carry LMDB's magic and data version 1 (see
/// `MetaPage.newest`). Multi-byte fields are in host order, page numbers
/// (`pgno_t`) and transaction ids (`txnid_t`) are 64-bit, and `PAGEBASE` is 0
/// (a build without `MDB_DEVEL`).
///
/// A page starts with a 16-byte header: `mp_pgno` (8 bytes), `mp_pad` (2),
/// `mp_flags` (2), then `mp_lower` and `mp_upper` (2 + 2), which an overflow
/// page reads as one 4-byte `mp_pages`. A branch or leaf page continues with
/// `mp_ptrs`, 2-byte offsets of its nodes, up to `mp_lower`; the nodes fill
/// the page from `mp_upper` to its end, each rounded up to an even size;
/// `[mp_lower, mp_upper)` is unused. A node has an 8-byte header — `mn_lo`,
/// `mn_hi`, `mn_flags`, `mn_ksize` — then the key, then in a leaf the value,
/// or for a value on overflow pages (`F_BIGDATA`) the 8-byte number of its
/// first page. In a branch node `mn_lo | mn_hi << 16 | mn_flags << 32` is the
/// child's page number; in a leaf node `mn_lo | mn_hi << 16` is the value's
/// size.
enum PageLayout {
    /// `PAGEHDRSZ`.
    static let headerSize = 16
    /// `NODESIZE`.
    static let nodeHeaderSize = 8
    /// `NUM_METAS`: pages 0 and 1 are meta pages.
    static let metaPageCount = 2
    /// `MDB_MAGIC`, the first field of `MDB_meta`.
    static let magic: UInt32 = 0xBEEF_C0DE
    /// `MDB_DATA_VERSION` of LMDB 0.9.
    static let dataVersion: UInt32 = 1
    /// `P_INVALID`: the root of an empty database.
    static let invalidPage = UInt64.max
    /// Page sizes LMDB 0.9 uses: the OS page size, at most `MAX_PAGESIZE`.
    static let pageSizes = 512...0x8000

    // MARK: Page flags (`mp_flags`)

    /// `P_BRANCH`.
    static let branchPage: UInt16 = 0x01
    /// `P_LEAF`.
    static let leafPage: UInt16 = 0x02
    /// `P_OVERFLOW`: the first page of a run holding one large value.
    static let overflowPage: UInt16 = 0x04
    /// `P_META`.
    static let metaPage: UInt16 = 0x08

    // MARK: Leaf node flags (`mn_flags`)

    /// `F_BIGDATA`: the value is on overflow pages.
    static let bigData: UInt16 = 0x01
    /// `F_SUBDATA`: the value is the `MDB_db` record of a named database.
    static let subDatabase: UInt16 = 0x02
    /// `F_DUPDATA`: the value holds sorted duplicates (`MDB_DUPSORT`).
    static let duplicates: UInt16 = 0x04

    // MARK: Header fields

    static let pageNumberOffset = 0
    static let flagsOffset = 10
    static let lowerOffset = 12
    static let upperOffset = 14
    /// `mp_pages`, in place of `mp_lower` and `mp_upper` on an overflow page.
    static let overflowCountOffset = 12

    // MARK: Reading

    /// The little-endian integer at `offset`; the caller checked the bounds.
    static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// `OVPAGES`: the pages of an overflow run that holds `valueSize` bytes.
    static func overflowPages(valueSize: Int, pageSize: Int) -> Int {
        (headerSize - 1 + valueSize) / pageSize + 1
    }

    /// `EVEN`: node sizes are rounded up to keep nodes 2-byte aligned.
    static func even(_ size: Int) -> Int { size + (size & 1) }

    /// The offsets of the first and last nonzero bytes of `bytes`, or nil when
    /// every byte is zero.
    static func nonzeroSpan(_ bytes: UnsafeRawBufferPointer) -> ClosedRange<Int>? {
        guard let first = bytes.firstIndex(where: { $0 != 0 }),
            let last = bytes.lastIndex(where: { $0 != 0 })
        else { return nil }
        return first...last
    }
}
