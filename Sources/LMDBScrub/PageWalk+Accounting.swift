internal import CLMDB
import LMDB

/// The pages outside the trees: accounting for every page once, and the
/// free pages and pages past the end that scrub zeroes.
extension PageWalk {
    /// Marks `number` as accounted for.
    ///
    /// - Throws: `LMDBError.corrupted` when it is outside `2...mm_last_pg` or
    ///   was accounted for already.
    mutating func claim(_ number: UInt64, by label: String) throws(LMDBError) {
        guard number >= UInt64(PageLayout.metaPageCount), number <= meta.lastPage else {
            throw corrupted("\(label) refers to page \(number), outside 2...\(meta.lastPage)")
        }
        let (word, bit) = (Int(number / 64), number % 64)
        guard seen[word] & (1 << bit) == 0 else {
            throw corrupted("page \(number) is used twice, the second time by \(label)")
        }
        seen[word] |= 1 << bit
    }

    func checkEveryPageIsAccountedFor() throws(LMDBError) {
        let total = Int(meta.lastPage) + 1
        let accounted = seen.reduce(0) { $0 + $1.nonzeroBitCount }
        guard accounted == total else {
            let seen = self.seen
            let missing = (0..<UInt64(total)).lazy.filter { seen[Int($0 / 64)] & (1 << ($0 % 64)) == 0 }
            throw corrupted(
                "\(total - accounted) of \(total) pages are in no tree and not on the free list, "
                    + "starting with \(Array(missing.prefix(5)))")
        }
    }

    /// Plans zeros for every released free page that holds a nonzero byte.
    /// A page past the end of the file holds nothing.
    mutating func planReleasedPages(_ file: borrowing DataFile) throws(LMDBError) {
        let pages = releasedPages.sorted()
        let perRead = chunk.count / pageSize
        var index = 0
        while index < pages.count {
            // The longest run of consecutive pages from here that fits the chunk.
            var count = 1
            while count < perRead, index + count < pages.count, pages[index + count] == pages[index] + UInt64(count) {
                count += 1
            }
            let offset = Int(pages[index]) * pageSize
            let read = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[0..<count * pageSize]), at: offset)
            for slot in 0..<count where slot * pageSize < read {
                let bytes = UnsafeRawBufferPointer(rebasing: chunk[slot * pageSize..<min(read, (slot + 1) * pageSize)])
                if PageLayout.nonzeroSpan(bytes) != nil {
                    plan.zero(offset + slot * pageSize..<offset + slot * pageSize + bytes.count)
                    plan.report.freePagesZeroed += 1
                }
            }
            index += count
        }
    }

    /// Plans zeros for every page past `mm_last_pg` that holds a nonzero byte.
    ///
    /// The file is as large as the map (`MDB_WRITEMAP`), most of it past
    /// `mm_last_pg` and never written, so only the parts the file system
    /// reports as data are read (`SEEK_DATA`): a hole reads as zeros. Pages
    /// past the end that a transaction wrote and never committed, and that
    /// an earlier scrub overwrote with zeros, stay data and are read by
    /// every scrub; they are few, and end where uncommitted writes ever
    /// reached. On a file system that reports no holes, the whole rest of the
    /// file is read.
    mutating func planPagesPastTheEnd(_ file: borrowing DataFile) throws(LMDBError) {
        /// Bytes mapped at a time.
        let window = 8 << 20
        var offset = (Int(meta.lastPage) + 1) * pageSize
        while offset < fileSize, let data = try file.data(from: offset) {
            var position = max(offset, data.lowerBound / pageSize * pageSize)
            let end = min(fileSize, (data.upperBound + pageSize - 1) / pageSize * pageSize)
            while position < end {
                let mapped = position..<min(end, position + window)
                try file.withMappedBytes(mapped) { (bytes) throws(LMDBError) in
                    for start in stride(from: 0, to: bytes.count, by: pageSize) {
                        let page = UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + pageSize)])
                        if PageLayout.nonzeroSpan(page) != nil {
                            plan.zero(mapped.lowerBound + start..<mapped.lowerBound + start + page.count)
                            plan.report.unallocatedPagesZeroed += 1
                        }
                    }
                }
                position = mapped.upperBound
            }
            offset = end
        }
    }
}
