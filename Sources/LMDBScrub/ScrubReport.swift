import LMDB
/// What one `Environment.scrub()` found and overwrote with zeros.
///
/// The counts of zeroed pages and bytes are of what was written: unused
/// bytes that were already zero are left alone and not counted, so a scrub
/// right after another zeroes nothing, unless writes freed pages, or
/// readers that deferred some ended, in between.
public struct ScrubReport: Sendable, Hashable {
    /// Free pages overwritten whole, header included: pages on LMDB's free
    /// list that no snapshot can read any more and that held a nonzero byte.
    public internal(set) var freePagesZeroed = 0
    /// Free pages left as they are because a live reader's snapshot may
    /// still read them. A scrub after that reader ends zeroes them.
    public internal(set) var freePagesDeferred = 0
    /// Unused bytes inside live branch and leaf pages that were overwritten:
    /// the gap between the node pointers and the nodes, the padding byte
    /// after an odd-sized node, and the unused end of a free-list record.
    public internal(set) var gapBytesZeroed = 0
    /// Bytes after the end of a value on its overflow pages that were
    /// overwritten.
    public internal(set) var overflowTailBytesZeroed = 0
    /// Pages past the last page of the committed snapshot, written by a
    /// transaction that never committed, that were overwritten.
    public internal(set) var unallocatedPagesZeroed = 0
    /// Pages of the committed snapshot's trees that scrub visited: branch,
    /// leaf and overflow pages of every database, the free list's own
    /// tree included.
    public internal(set) var pagesWalked = 0
    /// The transaction id of the oldest snapshot a live reader held, which
    /// decides which free pages are deferred; nil when no reader held one.
    public let oldestReaderSnapshot: Int?

    init(oldestReaderSnapshot: Int?) {
        self.oldestReaderSnapshot = oldestReaderSnapshot
    }
}
