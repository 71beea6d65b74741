internal import CLMDB

/// Options for `Transaction.put`.
public struct PutFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `MDB_NOOVERWRITE`: fail with `LMDBError.keyExists` if the key is there.
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
    /// `MDB_APPEND`: the key is greater than every key in the database, which
    /// makes the put about five times faster. A key out of order fails with
    /// `LMDBError.keyExists`, and the transaction stays usable.
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
}
