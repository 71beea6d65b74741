extension NameWindow {
    /// Sorts `entries` by `Entry.precedes`, in place: an introsort
    /// (quicksort on a median of three, insertion sort for short runs,
    /// heapsort past twice the depth a balanced split needs), so it
    /// allocates nothing and is O(n log n) on any input. The standard
    /// library's sort is stable and takes a buffer of half the elements,
    /// which a window's bounded memory has no room for.
    ///
    /// - Parameter depthLimit: the quicksort levels before heapsort takes
    ///   over; by default twice the depth of a balanced split (tests pass 0
    ///   to run the heapsort alone).
    static func sortInPlace(_ entries: UnsafeMutableBufferPointer<Entry>, depthLimit: Int? = nil) {
        guard entries.count > 1 else { return }
        let depth = depthLimit ?? 2 * (Int.bitWidth - entries.count.leadingZeroBitCount)
        introsort(entries, 0, entries.count, depthLeft: depth)
    }

    /// Runs this short are sorted by insertion.
    private static let insertionRun = 16

    private static func introsort(_ entries: UnsafeMutableBufferPointer<Entry>, _ start: Int, _ end: Int, depthLeft: Int) {
        var start = start, end = end, depthLeft = depthLeft
        while end - start > insertionRun {
            if depthLeft == 0 {
                heapsort(entries, start, end)
                return
            }
            depthLeft -= 1
            let split = partition(entries, start, end)
            // Recurse into the shorter side, loop on the longer: O(log n) stack.
            if split - start < end - split {
                introsort(entries, start, split, depthLeft: depthLeft)
                start = split
            } else {
                introsort(entries, split, end, depthLeft: depthLeft)
                end = split
            }
        }
        insertionSort(entries, start, end)
    }

    /// Hoare's partition around the median of the first, middle and last
    /// entries: returns `split`, with every entry before it not above every
    /// entry from it on, and `start < split < end`.
    private static func partition(_ entries: UnsafeMutableBufferPointer<Entry>, _ start: Int, _ end: Int) -> Int {
        let middle = start + (end - start) / 2
        if Entry.precedes(entries[middle], entries[start]) { entries.swapAt(middle, start) }
        if Entry.precedes(entries[end - 1], entries[start]) { entries.swapAt(end - 1, start) }
        if Entry.precedes(entries[end - 1], entries[middle]) { entries.swapAt(end - 1, middle) }
        let pivot = entries[middle]
        var low = start - 1, high = end
        while true {
            repeat { low += 1 } while Entry.precedes(entries[low], pivot)
            repeat { high -= 1 } while Entry.precedes(pivot, entries[high])
            if low >= high { return high + 1 }
            entries.swapAt(low, high)
        }
    }

    private static func insertionSort(_ entries: UnsafeMutableBufferPointer<Entry>, _ start: Int, _ end: Int) {
        guard end - start > 1 else { return }
        for index in start + 1..<end {
            let entry = entries[index]
            var hole = index
            while hole > start, Entry.precedes(entry, entries[hole - 1]) {
                entries[hole] = entries[hole - 1]
                hole -= 1
            }
            entries[hole] = entry
        }
    }

    private static func heapsort(_ entries: UnsafeMutableBufferPointer<Entry>, _ start: Int, _ end: Int) {
        let count = end - start
        for root in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(entries, start, root, count) }
        for last in stride(from: count - 1, to: 0, by: -1) {
            entries.swapAt(start, start + last)
            siftDown(entries, start, 0, last)
        }
    }

    /// Restores the max-heap of `count` entries from `start` below `root`.
    private static func siftDown(_ entries: UnsafeMutableBufferPointer<Entry>, _ start: Int, _ root: Int, _ count: Int) {
        var root = root
        while true {
            var child = 2 * root + 1
            guard child < count else { return }
            if child + 1 < count, Entry.precedes(entries[start + child], entries[start + child + 1]) { child += 1 }
            guard Entry.precedes(entries[start + root], entries[start + child]) else { return }
            entries.swapAt(start + root, start + child)
            root = child
        }
    }
}
