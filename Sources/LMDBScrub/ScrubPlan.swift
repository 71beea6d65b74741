import LMDB
/// The byte ranges of `data.mdb` that scrub overwrites with zeros, and the
/// report that describes them; built by `PageWalk`, which only reads.
struct ScrubPlan {
    /// Disjoint ranges of file offsets, in the order found.
    private(set) var ranges: [Range<Int>] = []
    var report: ScrubReport

    init(oldestReaderSnapshot: UInt64?) {
        report = ScrubReport(oldestReaderSnapshot: oldestReaderSnapshot.map { Int(truncatingIfNeeded: $0) })
    }

    /// Adds `range`; empty ranges are ignored.
    mutating func zero(_ range: Range<Int>) {
        if !range.isEmpty { ranges.append(range) }
    }

    /// Writes the zeros, in file order, merging ranges that touch.
    func apply(to file: borrowing DataFile) throws(LMDBError) {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in sorted {
            if let last = merged.last, last.upperBound >= range.lowerBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        let largest = merged.map(\.count).max() ?? 0
        guard largest > 0 else { return }
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: min(largest, 1 << 20), alignment: 8)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        for range in merged {
            try file.writeZeros(count: range.count, at: range.lowerBound, from: UnsafeRawBufferPointer(zeros))
        }
    }
}
