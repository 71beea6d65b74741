internal import CLMDB

/// A named database inside an environment, opened once when the environment
/// opens and valid for the environment's lifetime.
///
/// Corresponds to an `MDB_dbi`. Handles are cheap values; using one with an
/// environment that did not open it throws `LMDBError.foreignDatabase`.
public struct Database: Hashable, Sendable, CustomStringConvertible {
    /// The name given to `Environment.open(databases:)`.
    public let name: String
    let dbi: MDB_dbi
    let environmentID: Int

    public var description: String { "'\(name)'" }
}
