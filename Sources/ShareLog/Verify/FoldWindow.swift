import LMDB

/// The part of a fold that `verify` holds in memory at a time: the values
/// of every key from `lowerBound` (inclusive) to `upperBound` (exclusive),
/// and never more than `limit`, a quarter over `capacity`.
///
/// A pass over the log offers every key to the window, which folds those
/// in its range. The range may start with an end (`preset(upperBound:)`);
/// when the window would hold more than `limit`, it keeps the `capacity`
/// smallest and lowers `upperBound` to the smallest key it dropped, and
/// from then on ignores keys at or above it. So what it holds at the end of
/// a pass is complete for its range, and the next window starts where this
/// one ended. Keys are in LMDB's order of their bytes, so a window's range
/// is a `KeyRange` of the derived database keyed by them.
///
/// Memory: the window reserves room for `limit` values when it is made and
/// reuses it for every later range (`advance()`), so its storage never
/// grows: `reservedBytes`, which `capacity(budget:)` sizes to a budget.
/// A shrink adds a sorted copy of the keys for a moment; a preset end from
/// the stored keys spares a consistent store every shrink.
struct FoldWindow<Key: FoldKey, Value> {
    /// The smallest key in range; nil from the first key on.
    private(set) var lowerBound: Key?
    /// The first key past the range; nil up to the last key.
    private(set) var upperBound: Key?
    let capacity: Int
    /// How many values it holds before it shrinks back to `capacity`.
    let limit: Int
    private(set) var values: [Key: Value]

    /// Reserves the room for `limit` values at once.
    ///
    /// - Precondition: `capacity > 0`.
    init(from lowerBound: Key?, capacity: Int) {
        precondition(capacity > 0, "a fold window holds at least one key")
        self.lowerBound = lowerBound
        self.capacity = capacity
        limit = capacity + capacity / 4
        values = Dictionary(minimumCapacity: limit)
    }

    /// The largest capacity whose window fits `budget` bytes: a Swift
    /// dictionary keeps its keys and values in a power of two of buckets,
    /// at most three quarters full, so the window holds `limit` values in
    /// the largest such table within the budget. At least 1.
    static func capacity(budget: Int) -> Int {
        var buckets = 4
        while buckets * 2 * bucketBytes <= budget { buckets *= 2 }
        return max(1, buckets * 3 / 4 * 4 / 5)
    }

    /// The bytes of one bucket of the table: a key and a value.
    static var bucketBytes: Int { MemoryLayout<Key>.stride + MemoryLayout<Value>.stride }

    /// The bytes of the table reserved, which no fold grows.
    var reservedBytes: Int {
        var buckets = 1
        while buckets * 3 / 4 < values.capacity { buckets *= 2 }
        return buckets * Self.bucketBytes
    }

    /// Moves to the range after this one, empty, keeping the storage;
    /// false when this one runs to the last key.
    mutating func advance() -> Bool {
        guard let upperBound else { return false }
        lowerBound = upperBound
        self.upperBound = nil
        values.removeAll(keepingCapacity: true)
        return true
    }

    /// Ends the range, before any key is folded, at `key`, a key past its
    /// start (a guess: a shrink still bounds it if more keys fall in range).
    mutating func preset(upperBound key: Key) {
        precondition(values.isEmpty && upperBound == nil, "a fold window's end is preset before it folds")
        precondition(lowerBound.map { Key.precedes($0, key) } ?? true, "a fold window ends past its start")
        upperBound = key
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

    /// Folds into `key`'s value, starting from `initial` for a new key; does
    /// nothing when `key` is out of range.
    mutating func fold(_ key: Key, initial: @autoclosure () -> Value, _ change: (inout Value) -> Void) {
        guard contains(key) else { return }
        if values.count == limit, values[key] == nil {
            shrink(adding: key)
            guard contains(key) else { return }
        }
        change(&values[key, default: initial()])
    }

    /// Changes `key`'s value when the window holds it; does nothing
    /// otherwise.
    mutating func refold(_ key: Key, _ change: (inout Value) -> Void) {
        guard !values.isEmpty, let index = values.index(forKey: key) else { return }
        change(&values.values[index])
    }

    /// Keeps the `capacity` smallest of the keys held and `key`, and ends
    /// the range at the next.
    private mutating func shrink(adding key: Key) {
        var sorted = Array(values.keys)
        sorted.append(key)
        sorted.sort(by: Key.precedes)
        for key in sorted[capacity...] { values[key] = nil }
        upperBound = sorted[capacity]
        // The next window starts here, so it must lie past this one's start
        // or verify would read the log for ever.
        precondition(lowerBound.map { Key.precedes($0, sorted[capacity]) } ?? true, "a fold window ends past its start")
    }
}
