internal import CLMDB
import LMDB

/// One read-only pass over the committed snapshot in `data.mdb` that finds
/// every byte `Environment.scrub` may overwrite, and checks the file against
/// LMDB's own bookkeeping on the way.
///
/// From the newest meta page it walks the free list's tree, the main
/// database's tree and the tree of every named database the main database
/// records (`F_SUBDATA` nodes), including overflow runs, reading each page
/// with `pread` (never through the map, so a wrong page number is an error,
/// not a `SIGBUS`). It plans zeros for:
/// - the gap `[mp_lower, mp_upper)` of each branch and leaf page, and the
///   padding byte after each odd-sized node;
/// - the bytes of each overflow run after its value, up to the end of the
///   run's last page (`mp_pages` may exceed what the value needs: LMDB
///   overwrites a dirty run in place with a smaller value);
/// - the unused end of each free-list record: a record's value is an IDL,
///   a count then that many page numbers, and LMDB reserves records larger
///   than it fills;
/// - whole free pages, unless already all zero, that were freed by a
///   transaction T when no live reader has a snapshot older than T (those
///   snapshots may still read them);
/// - pages past `mm_last_pg`, which no snapshot contains.
///
/// Only unused bytes that are not already zero are planned. Before any of
/// that is trusted, every check below must hold, or the walk throws and
/// nothing is written:
/// - every page records the page number it is reached by, and is a branch
///   page above its tree's `md_depth` and a leaf page at it;
/// - each page's nodes lie between `mp_upper` and the page's end and fill
///   that span exactly, in even sizes, so the gap and padding bytes are the
///   only unused bytes;
/// - each overflow run starts with an overflow header of its own number,
///   is long enough for its value, and ends by `mm_last_pg`;
/// - each tree's branch, leaf and overflow page counts, depth and entries
///   equal its `MDB_db` record;
/// - every page from 0 to `mm_last_pg` is exactly one of: a meta page, a
///   page of one tree, a page listed once on the free list.
struct PageWalk: ~Copyable {
    let meta: MetaPage
    let pageSize: Int
    let fileSize: Int
    private let oldestReaderSnapshot: UInt64?
    private let context: String
    var plan: ScrubPlan
    /// One bit per page, 0 through `mm_last_pg`: set once the page is
    /// accounted for.
    var seen: [UInt64]
    /// Free pages that no snapshot can read.
    var releasedPages: [UInt64] = []
    /// The page being parsed.
    private let page: UnsafeMutableRawBufferPointer
    /// Scratch space for overflow headers, tails and free pages.
    let chunk: UnsafeMutableRawBufferPointer

    /// Where a tree's leaves lead.
    private enum Tree {
        /// Keys are transaction ids, values IDLs of the pages they freed.
        case freeList
        /// Values are user data or named databases' records.
        case main
        /// Values are user data.
        case named
    }

    /// - Parameters:
    ///   - meta: the newest meta page, which LMDB confirmed is the snapshot
    ///     the running write transaction builds on.
    ///   - oldestReaderSnapshot: from `ReaderTable`; nil when no reader holds
    ///     a snapshot.
    init(meta: MetaPage, fileSize: Int, oldestReaderSnapshot: UInt64?, context: String) {
        self.meta = meta
        self.pageSize = meta.pageSize
        self.fileSize = fileSize
        self.oldestReaderSnapshot = oldestReaderSnapshot
        self.context = context
        plan = ScrubPlan(oldestReaderSnapshot: oldestReaderSnapshot)
        seen = [UInt64](repeating: 0, count: Int(meta.lastPage / 64) + 1)
        seen[0] = (1 << PageLayout.metaPageCount) - 1
        page = .allocate(byteCount: meta.pageSize, alignment: 8)
        chunk = .allocate(byteCount: max(meta.pageSize, 1 << 20), alignment: 8)
    }

    deinit {
        page.deallocate()
        chunk.deallocate()
    }

    /// Walks the snapshot and returns what to zero.
    ///
    /// - Throws: `LMDBError.corrupted` when a check fails,
    ///   `LMDBError.incompatible` for a database with sorted duplicates
    ///   (`MDB_DUPSORT`), which scrub does not walk; an I/O error as its
    ///   `errno`. Nothing is written in any case.
    /// - Complexity: O(pages in the file): each tree page is read once, of
    ///   an overflow run only its header and tail, and each free page and
    ///   page past `mm_last_pg` once.
    consuming func run(_ file: borrowing DataFile) throws(LMDBError) -> ScrubPlan {
        try walk(meta.freeList, as: .freeList, label: "the free list", file)
        guard !meta.main.hasDuplicates else {
            throw LMDBError(code: MDB_INCOMPATIBLE, context: "\(context): the main database has MDB_DUPSORT")
        }
        for (name, record) in try walk(meta.main, as: .main, label: "the main database", file) {
            guard !record.hasDuplicates else {
                throw LMDBError(
                    code: MDB_INCOMPATIBLE,
                    context: "\(context): database '\(name)' has MDB_DUPSORT, whose pages scrub does not walk")
            }
            try walk(record, as: .named, label: "database '\(name)'", file)
        }
        try checkEveryPageIsAccountedFor()
        try planReleasedPages(file)
        try planPagesPastTheEnd(file)
        return plan
    }

    // MARK: Trees

    /// Walks one tree depth-first and checks it against `record`.
    ///
    /// - Returns: the named databases' records found in its leaves (only the
    ///   main database has them).
    @discardableResult
    private mutating func walk(
        _ record: DatabaseRecord, as tree: Tree, label: String, _ file: borrowing DataFile
    ) throws(LMDBError) -> [(name: String, record: DatabaseRecord)] {
        var tally = TreeTally()
        var named: [(name: String, record: DatabaseRecord)] = []
        var pending: [(number: UInt64, depth: Int)] = []
        if record.root != PageLayout.invalidPage { pending.append((record.root, 1)) }
        while let next = pending.popLast() {
            let (number, depth) = (next.number, next.depth)
            try claim(number, by: label)
            let offset = Int(number) * pageSize
            try file.readFully(into: page, at: offset)
            let bytes = UnsafeRawBufferPointer(page)
            let recorded = PageLayout.load(UInt64.self, bytes, at: PageLayout.pageNumberOffset)
            guard recorded == number else {
                throw corrupted("page \(number) of \(label) says it is page \(recorded)")
            }
            let flags = PageLayout.load(UInt16.self, bytes, at: PageLayout.flagsOffset)
            let isBranch = flags == PageLayout.branchPage
            guard isBranch || flags == PageLayout.leafPage else {
                throw corrupted(
                    "page \(number) of \(label) has flags 0x\(String(flags, radix: 16)), not a branch or leaf page")
            }
            guard depth <= record.depth, isBranch == (depth < record.depth) else {
                throw corrupted(
                    "page \(number) of \(label) is a \(isBranch ? "branch" : "leaf") at depth \(depth) of \(record.depth)")
            }
            tally.depth = max(tally.depth, depth)
            plan.report.pagesWalked += 1
            let nodes = try layOut(bytes, number: number, isBranch: isBranch, label: label)
            if isBranch {
                tally.branchPages += 1
                for start in nodes.reversed() {
                    let low = UInt64(PageLayout.load(UInt16.self, bytes, at: start))
                    let high = UInt64(PageLayout.load(UInt16.self, bytes, at: start + 2))
                    let top = UInt64(PageLayout.load(UInt16.self, bytes, at: start + 4))
                    pending.append((low | high << 16 | top << 32, depth + 1))
                }
            } else {
                tally.leafPages += 1
                tally.entries += nodes.count
                for start in nodes {
                    try visitLeafNode(at: start, in: bytes, pageOffset: offset, tree: tree, label: label,
                                      tally: &tally, named: &named, file)
                }
            }
        }
        guard tally.matches(record) else {
            throw corrupted("\(label) has \(tally.summary), its record says \(record.summary)")
        }
        return named
    }

    /// Checks that the nodes of a branch or leaf page fill `[mp_upper, end)`
    /// exactly, and plans zeros for the gap and the padding bytes.
    ///
    /// - Returns: the nodes' offsets in key order.
    private mutating func layOut(
        _ bytes: UnsafeRawBufferPointer, number: UInt64, isBranch: Bool, label: String
    ) throws(LMDBError) -> [Int] {
        let offset = Int(number) * pageSize
        let lower = Int(PageLayout.load(UInt16.self, bytes, at: PageLayout.lowerOffset))
        let upper = Int(PageLayout.load(UInt16.self, bytes, at: PageLayout.upperOffset))
        guard lower >= PageLayout.headerSize, lower <= upper, upper <= pageSize,
            (lower - PageLayout.headerSize) % 2 == 0
        else {
            throw corrupted("page \(number) of \(label) has mp_lower \(lower) and mp_upper \(upper)")
        }
        var starts: [Int] = []
        var extents: [(start: Int, size: Int)] = []
        for index in 0..<(lower - PageLayout.headerSize) / 2 {
            let start = Int(PageLayout.load(UInt16.self, bytes, at: PageLayout.headerSize + 2 * index))
            guard start >= upper, start + PageLayout.nodeHeaderSize <= pageSize else {
                throw corrupted(
                    "node \(index) of page \(number) of \(label) starts at \(start), outside \(upper)..<\(pageSize)")
            }
            let keySize = Int(PageLayout.load(UInt16.self, bytes, at: start + 6))
            var size = PageLayout.nodeHeaderSize + keySize
            if !isBranch {
                let flags = PageLayout.load(UInt16.self, bytes, at: start + 4)
                size += flags & PageLayout.bigData != 0 ? 8 : Self.valueSize(bytes, node: start)
            }
            starts.append(start)
            extents.append((start, size))
        }
        var end = upper
        for extent in extents.sorted(by: { $0.start < $1.start }) {
            guard extent.start == end, extent.start + PageLayout.even(extent.size) <= pageSize else {
                throw corrupted(
                    "the nodes of page \(number) of \(label) do not fill it from mp_upper \(upper): "
                        + "one starts at \(extent.start), expected \(end)")
            }
            end = extent.start + PageLayout.even(extent.size)
            let padding = extent.start + extent.size
            if padding < end, bytes[padding] != 0 {
                plan.zero(offset + padding..<offset + padding + 1)
                plan.report.gapBytesZeroed += 1
            }
        }
        guard end == pageSize else {
            throw corrupted("the nodes of page \(number) of \(label) end at \(end), before the end of the page")
        }
        if let span = PageLayout.nonzeroSpan(UnsafeRawBufferPointer(rebasing: bytes[lower..<upper])) {
            plan.zero(offset + lower + span.lowerBound..<offset + lower + span.upperBound + 1)
            plan.report.gapBytesZeroed += span.count
        }
        return starts
    }

    /// `NODEDSZ`: the size of a leaf node's value.
    private static func valueSize(_ bytes: UnsafeRawBufferPointer, node start: Int) -> Int {
        Int(PageLayout.load(UInt16.self, bytes, at: start)) | Int(PageLayout.load(UInt16.self, bytes, at: start + 2)) << 16
    }

    /// Follows one leaf node: a named database's record, a free-list record,
    /// or a value, and the overflow run it may sit on.
    private mutating func visitLeafNode(
        at start: Int, in bytes: UnsafeRawBufferPointer, pageOffset: Int, tree: Tree, label: String,
        tally: inout TreeTally, named: inout [(name: String, record: DatabaseRecord)], _ file: borrowing DataFile
    ) throws(LMDBError) {
        let flags = PageLayout.load(UInt16.self, bytes, at: start + 4)
        let keySize = Int(PageLayout.load(UInt16.self, bytes, at: start + 6))
        let size = Self.valueSize(bytes, node: start)
        let key = start + PageLayout.nodeHeaderSize
        let value = key + keySize
        let isBig = flags & PageLayout.bigData != 0
        guard flags & ~(PageLayout.bigData | PageLayout.subDatabase | PageLayout.duplicates) == 0 else {
            throw corrupted("a node of \(label) has flags 0x\(String(flags, radix: 16))")
        }
        guard flags & PageLayout.duplicates == 0 else {
            throw LMDBError(
                code: MDB_INCOMPATIBLE,
                context: "\(context): \(label) holds sorted duplicates, whose pages scrub does not walk")
        }
        if flags & PageLayout.subDatabase != 0 {
            guard tree == .main, !isBig, size == DatabaseRecord.size else {
                throw corrupted("\(label) has a database record of \(size) bytes where none can be")
            }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[key..<value]), as: UTF8.self)
            named.append((name, DatabaseRecord(bytes, at: value)))
            return
        }
        var run: Int?
        if isBig {
            run = try overflowRun(
                from: PageLayout.load(UInt64.self, bytes, at: value), valueSize: size, label: label, tally: &tally, file)
        }
        guard tree == .freeList else { return }
        guard keySize == 8 else { throw corrupted("\(label) has a key of \(keySize) bytes, not a transaction id") }
        let freedBy = PageLayout.load(UInt64.self, bytes, at: key)
        guard let run else {
            try visitFreeRecord(
                freedBy: freedBy, UnsafeRawBufferPointer(rebasing: bytes[value..<value + size]),
                at: pageOffset + value)
            return
        }
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        defer { copy.deallocate() }
        try file.readFully(into: copy, at: run + PageLayout.headerSize)
        try visitFreeRecord(freedBy: freedBy, UnsafeRawBufferPointer(copy), at: run + PageLayout.headerSize)
    }

    /// Checks the overflow run of a `valueSize`-byte value that starts at
    /// page `first`, accounts for its pages and plans zeros for its tail.
    ///
    /// - Returns: the run's offset in the file.
    private mutating func overflowRun(
        from first: UInt64, valueSize: Int, label: String, tally: inout TreeTally, _ file: borrowing DataFile
    ) throws(LMDBError) -> Int {
        guard first >= UInt64(PageLayout.metaPageCount), first <= meta.lastPage else {
            throw corrupted("\(label) has a value on page \(first), outside 2...\(meta.lastPage)")
        }
        let offset = Int(first) * pageSize
        let header = UnsafeMutableRawBufferPointer(rebasing: chunk[0..<PageLayout.headerSize])
        try file.readFully(into: header, at: offset)
        let bytes = UnsafeRawBufferPointer(header)
        let recorded = PageLayout.load(UInt64.self, bytes, at: PageLayout.pageNumberOffset)
        let flags = PageLayout.load(UInt16.self, bytes, at: PageLayout.flagsOffset)
        let count = Int(PageLayout.load(UInt32.self, bytes, at: PageLayout.overflowCountOffset))
        guard recorded == first, flags == PageLayout.overflowPage else {
            throw corrupted(
                "page \(first), holding a value of \(label), is not an overflow page "
                    + "(page number \(recorded), flags 0x\(String(flags, radix: 16)))")
        }
        guard count >= PageLayout.overflowPages(valueSize: valueSize, pageSize: pageSize),
            first + UInt64(count) - 1 <= meta.lastPage, offset + count * pageSize <= fileSize
        else {
            throw corrupted(
                "the overflow run at page \(first) of \(label) has \(count) pages for a value of \(valueSize) bytes")
        }
        for number in first..<first + UInt64(count) { try claim(number, by: label) }
        tally.overflowPages += count
        plan.report.pagesWalked += count
        let tail = offset + PageLayout.headerSize + valueSize..<offset + count * pageSize
        if let span = try nonzeroSpan(of: tail, file) {
            plan.zero(span)
            plan.report.overflowTailBytesZeroed += span.count
        }
        return offset
    }

    /// Accounts for the pages of one free-list record and plans zeros for
    /// the record's unused end.
    ///
    /// - Parameters:
    ///   - freedBy: the record's key, the transaction that freed the pages.
    ///     A record LMDB re-saved from pages it had reclaimed carries a key
    ///     no smaller than the transaction that freed them, so the test
    ///     below stays on the safe side.
    ///   - value: the record's IDL: a count, then that many page numbers.
    ///   - position: where `value` starts in the file.
    private mutating func visitFreeRecord(
        freedBy: UInt64, _ value: UnsafeRawBufferPointer, at position: Int
    ) throws(LMDBError) {
        let capacity = value.count / 8 - 1
        guard value.count % 8 == 0, capacity >= 0 else {
            throw corrupted("the free-list record of transaction \(freedBy) has \(value.count) bytes")
        }
        let count = PageLayout.load(UInt64.self, value, at: 0)
        guard count <= UInt64(capacity) else {
            throw corrupted("the free-list record of transaction \(freedBy) lists \(count) pages in room for \(capacity)")
        }
        let used = (Int(count) + 1) * 8
        if let span = PageLayout.nonzeroSpan(UnsafeRawBufferPointer(rebasing: value[used...])) {
            plan.zero(position + used + span.lowerBound..<position + used + span.upperBound + 1)
            plan.report.gapBytesZeroed += span.count
        }
        // Snapshot R reads the pages freed by transaction T only if R < T.
        let released = oldestReaderSnapshot.map { freedBy <= $0 } ?? true
        for index in 0..<Int(count) {
            let number = PageLayout.load(UInt64.self, value, at: 8 * (index + 1))
            try claim(number, by: "the free list")
            if released {
                releasedPages.append(number)
            } else {
                plan.report.freePagesDeferred += 1
            }
        }
    }

    /// The span from the first to the last nonzero byte of `range` of the
    /// file, which lies inside a page in use.
    private func nonzeroSpan(of range: Range<Int>, _ file: borrowing DataFile) throws(LMDBError) -> Range<Int>? {
        var first: Int?
        var last = 0
        var position = range.lowerBound
        while position < range.upperBound {
            let piece = UnsafeMutableRawBufferPointer(rebasing: chunk[0..<min(chunk.count, range.upperBound - position)])
            try file.readFully(into: piece, at: position)
            if let span = PageLayout.nonzeroSpan(UnsafeRawBufferPointer(piece)) {
                first = first ?? position + span.lowerBound
                last = position + span.upperBound
            }
            position += piece.count
        }
        return first.map { $0..<last + 1 }
    }

    func corrupted(_ problem: String) -> LMDBError {
        LMDBError(code: MDB_CORRUPTED, context: "\(context): \(problem)")
    }
}
