import LMDB

/// The part of `verify`'s fold by record name held in memory at a time:
/// for each logged `shareCreated` and `shareExpired` of a name in its
/// range, the name and the event's log position, 24 bytes, in an array
/// reserved once. The events' facts stay in the log, which the compare
/// reads again, in place, in the same snapshot.
///
/// A pass over the log offers every such event (`add(_:at:)`); the window
/// keeps those whose name lies from `lowerBound` (inclusive) to
/// `upperBound` (exclusive). The range may start with an end
/// (`preset(upperBound:)`); when the array is full, the window sorts it,
/// keeps the names of about its first three quarters, never splitting a
/// name, lowers `upperBound` to the first name it dropped, and from then on
/// ignores names at or above it. So what it holds at the end of a pass is
/// every event of every name in its range, and the next window starts where
/// this one ended. Names are in LMDB's order of their bytes, so a window's
/// range is a `KeyRange` of `shares`.
///
/// After the pass, `sort()` groups the entries by name, in key order, and
/// within a name in log order: `groups` are what the compare folds.
///
/// Memory: `capacity` entries, reserved when the window is made and reused
/// for every later range (`advance()`); the sort is in place. The one
/// exception is a name with more logged events than the array holds,
/// which only a damaged or hostile log has: the array doubles to hold it,
/// since a name is never split between windows.
struct NameWindow {
    /// One logged event of a name: the name as its ordered halves (which
    /// compare as its bytes do), and the event's log position.
    struct Entry {
        let name: (UInt64, UInt64)
        let position: UInt64

        /// Name order, then log order.
        static func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
            lhs.name != rhs.name ? lhs.name < rhs.name : lhs.position < rhs.position
        }
    }

    /// The events of one name: their log positions, in log order.
    struct Group {
        let name: RecordName
        let positions: LazyMapSequence<ArraySlice<Entry>, UInt64>

        init(name: RecordName, entries: ArraySlice<Entry>) {
            self.name = name
            positions = entries.lazy.map(\.position)
        }
    }

    /// The smallest name in range; nil from the first name on.
    private(set) var lowerBound: RecordName?
    /// The first name past the range; nil up to the last name.
    private(set) var upperBound: RecordName?
    /// Entries reserved, and held before the window shrinks.
    let capacity: Int
    /// Entries held before the window shrinks: `capacity`, or more once a
    /// single name has needed more.
    private(set) var limit: Int
    private(set) var entries: [Entry]
    /// Whether `entries` is in `Entry.precedes` order.
    private(set) var isSorted = true

    /// Reserves the room for `capacity` entries at once.
    ///
    /// - Precondition: `capacity > 0`.
    init(capacity: Int) {
        precondition(capacity > 0, "a name window holds at least one entry")
        self.capacity = capacity
        limit = capacity
        entries = []
        entries.reserveCapacity(capacity)
    }

    /// The bytes of one entry.
    static var entryBytes: Int { MemoryLayout<Entry>.stride }

    /// The bytes reserved for entries (the allocator may round them up).
    var reservedBytes: Int { limit * Self.entryBytes }

    /// True when `name` lies in the window's range.
    func contains(_ name: RecordName) -> Bool {
        contains(name.orderedHalves)
    }

    private func contains(_ halves: (UInt64, UInt64)) -> Bool {
        (lowerBound.map { halves >= $0.orderedHalves } ?? true) && (upperBound.map { halves < $0.orderedHalves } ?? true)
    }

    /// The window's range of `shares` keys: every key, of any length, at
    /// or above `lowerBound`'s bytes and below `upperBound`'s.
    var keyRange: KeyRange {
        var range = KeyRange.all
        range.lowerBound = lowerBound?.keyBytes
        range.upperBound = upperBound?.keyBytes
        return range
    }

    /// Ends the range, before any event is added, at `name`, a name past
    /// its start (a guess: a shrink still bounds it if more events fall in
    /// range).
    mutating func preset(upperBound name: RecordName) {
        precondition(entries.isEmpty && upperBound == nil, "a name window's end is preset before it holds events")
        precondition(lowerBound.map { RecordName.precedes($0, name) } ?? true, "a name window ends past its start")
        upperBound = name
    }

    /// Keeps the event at `position` of `name` when `name` is in range.
    mutating func add(_ name: RecordName, at position: UInt64) {
        let halves = name.orderedHalves
        guard contains(halves) else { return }
        if entries.count == limit {
            shrink()
            guard contains(halves) else { return }
        }
        if let last = entries.last, isSorted, !Entry.precedes(last, Entry(name: halves, position: position)) { isSorted = false }
        entries.append(Entry(name: halves, position: position))
    }

    /// Sorts the entries in place: by name, then log position.
    mutating func sort() {
        guard !isSorted else { return }
        entries.withUnsafeMutableBufferPointer { Self.sortInPlace($0) }
        isSorted = true
    }

    /// The entries by name, in key order. Valid after `sort()`.
    var groups: GroupSequence {
        precondition(isSorted, "a name window is grouped once sorted")
        return GroupSequence(entries: entries[...])
    }

    /// The events of `name`, or nil when the window holds none. Valid
    /// after `sort()`; O(log n).
    func group(of name: RecordName) -> Group? {
        precondition(isSorted, "a name window is searched once sorted")
        let halves = name.orderedHalves
        let start = firstIndex { $0.name >= halves }
        guard start < entries.endIndex, entries[start].name == halves else { return nil }
        let end = firstIndex { $0.name > halves }
        return Group(name: name, entries: entries[start..<end])
    }

    /// Moves to the range after this one, empty, keeping the storage;
    /// false when this one runs to the last name.
    mutating func advance() -> Bool {
        guard let upperBound else { return false }
        lowerBound = upperBound
        self.upperBound = nil
        entries.removeAll(keepingCapacity: true)
        isSorted = true
        return true
    }

    /// The first index whose entry satisfies `isAbove`, a predicate false
    /// then true along the sorted entries.
    private func firstIndex(where isAbove: (Entry) -> Bool) -> Int {
        var low = entries.startIndex, high = entries.endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if isAbove(entries[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Keeps the names of about the first three quarters of the entries,
    /// and ends the range at the first name dropped; a first name that
    /// fills the array doubles it instead.
    private mutating func shrink() {
        sort()
        var cut = entries.count * 3 / 4
        // Back to the first entry of the name the cut falls in.
        while cut > 0, entries[cut - 1].name == entries[cut].name { cut -= 1 }
        if cut == 0 {
            // The first name holds three quarters or more: keep it whole.
            cut = firstIndex { $0.name > entries[0].name }
        }
        guard cut < entries.count else {
            limit *= 2
            entries.reserveCapacity(limit)
            return
        }
        upperBound = RecordName(orderedHalves: entries[cut].name)
        entries.removeSubrange(cut...)
        // The next window starts here, so it must lie past this one's start
        // or verify would read the log for ever.
        precondition(lowerBound.map { RecordName.precedes($0, upperBound!) } ?? true, "a name window ends past its start")
    }
}

extension NameWindow {
    /// The groups of a sorted window's entries, in order.
    struct GroupSequence: Sequence, IteratorProtocol {
        var entries: ArraySlice<Entry>

        mutating func next() -> Group? {
            guard let first = entries.first else { return nil }
            var end = entries.startIndex + 1
            while end < entries.endIndex, entries[end].name == first.name { end += 1 }
            defer { entries = entries[end...] }
            return Group(name: RecordName(orderedHalves: first.name), entries: entries[..<end])
        }
    }
}
