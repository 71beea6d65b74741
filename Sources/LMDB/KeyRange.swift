import Glibc

/// A range of keys in LMDB's byte order (lexicographic, shorter first on a
/// common prefix), for cursor iteration.
public struct KeyRange: Sendable, Equatable {
    /// The first key to visit, inclusive; nil starts at the first key.
    public var lowerBound: [UInt8]?
    /// Where iteration stops; nil runs to the last key.
    public var upperBound: [UInt8]?
    /// Whether `upperBound` itself is visited.
    public var includesUpperBound: Bool

    /// Every key.
    public static let all = KeyRange(lowerBound: nil, upperBound: nil, includesUpperBound: false)

    /// Keys `>= lower` and `< upper`.
    public static func from(_ lower: [UInt8], upTo upper: [UInt8]) -> KeyRange {
        KeyRange(lowerBound: lower, upperBound: upper, includesUpperBound: false)
    }

    /// Keys `>= lower` and `<= upper`.
    public static func from(_ lower: [UInt8], through upper: [UInt8]) -> KeyRange {
        KeyRange(lowerBound: lower, upperBound: upper, includesUpperBound: true)
    }

    /// Keys `>= lower`.
    public static func from(_ lower: [UInt8]) -> KeyRange {
        KeyRange(lowerBound: lower, upperBound: nil, includesUpperBound: false)
    }

    /// Keys `< upper`.
    public static func upTo(_ upper: [UInt8]) -> KeyRange {
        KeyRange(lowerBound: nil, upperBound: upper, includesUpperBound: false)
    }

    /// Keys `<= upper`.
    public static func through(_ upper: [UInt8]) -> KeyRange {
        KeyRange(lowerBound: nil, upperBound: upper, includesUpperBound: true)
    }

    /// True when `key` lies at or below the upper bound: how a walk that
    /// began at `Cursor.seekFirst(in:)` knows it is still in the range.
    public func isBelowUpperBound(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let upperBound else { return true }
        let order = compareKeys(key, upperBound)
        return order < 0 || (order == 0 && includesUpperBound)
    }

    /// True when `key` lies at or above the lower bound.
    func isAboveLowerBound(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let lowerBound else { return true }
        return compareKeys(key, lowerBound) >= 0
    }
}

/// LMDB's default key order: memcmp over the common length, then shorter first.
func compareKeys(_ lhs: UnsafeRawBufferPointer, _ rhs: [UInt8]) -> Int {
    rhs.withUnsafeBytes { rhs in
        let common = min(lhs.count, rhs.count)
        if common > 0, let l = lhs.baseAddress, let r = rhs.baseAddress {
            let order = memcmp(l, r, common)
            if order != 0 { return Int(order) }
        }
        return lhs.count - rhs.count
    }
}
