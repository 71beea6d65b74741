import LMDB

/// The part of a fold that `verify` holds in memory at a time: the values
/// of every key from `lowerBound` (inclusive) to `upperBound` (exclusive),
/// and never many more than `capacity` of them.
///
/// A pass over the log offers every key to the window, which folds those
/// in its range. When it holds a quarter more than `capacity`, it keeps the
/// `capacity` smallest and lowers `upperBound` to the smallest key it
/// dropped, and from then on ignores keys at or above it. So what it holds
/// at the end of a pass is complete for its range, and the next window
/// starts where this one ended. Memory: O(capacity) values. Keys are in
/// LMDB's order of their bytes, so a window's range is a `KeyRange` of the
/// derived database keyed by them.
struct FoldWindow<Key: FoldKey, Value> {
    /// The smallest key in range; nil from the first key on.
    let lowerBound: Key?
    /// The first key past the range; nil up to the last key.
    private(set) var upperBound: Key?
    let capacity: Int
    /// How many values it holds before it shrinks back to `capacity`.
    private let limit: Int
    private(set) var values: [Key: Value] = [:]

    /// - Precondition: `capacity > 0`.
    init(from lowerBound: Key?, capacity: Int) {
        precondition(capacity > 0, "a fold window holds at least one key")
        self.lowerBound = lowerBound
        self.capacity = capacity
        let (limit, overflow) = capacity.addingReportingOverflow(capacity / 4)
        self.limit = overflow ? .max : limit
    }

    /// The window after this one, or nil when this one runs to the last key.
    var next: FoldWindow? {
        upperBound.map { FoldWindow(from: $0, capacity: capacity) }
    }

    /// True when `key` lies in the window's range.
    func contains(_ key: Key) -> Bool {
        (lowerBound.map { !Key.precedes(key, $0) } ?? true) && (upperBound.map { Key.precedes(key, $0) } ?? true)
    }

    /// The window's range of LMDB keys: every key, of any length, at or
    /// above `lowerBound`'s bytes and below `upperBound`'s.
    var keyRange: KeyRange {
        var range = KeyRange.all
        range.lowerBound = lowerBound?.keyBytes
        range.upperBound = upperBound?.keyBytes
        return range
    }

    /// The keys held, in LMDB order.
    var sortedKeys: [Key] { values.keys.sorted(by: Key.precedes) }

    /// Folds into `key`'s value, starting from `initial` for a new key; does
    /// nothing when `key` is out of range.
    mutating func fold(_ key: Key, initial: @autoclosure () -> Value, _ change: (inout Value) -> Void) {
        guard contains(key) else { return }
        change(&values[key, default: initial()])
        if values.count > limit { shrink() }
    }

    /// Keeps the `capacity` smallest keys and ends the range at the next.
    private mutating func shrink() {
        let sorted = sortedKeys
        for key in sorted[capacity...] { values[key] = nil }
        upperBound = sorted[capacity]
        // The next window starts here, so it must lie past this one's start
        // or verify would read the log for ever.
        precondition(lowerBound.map { Key.precedes($0, sorted[capacity]) } ?? true, "a fold window ends past its start")
    }
}
