/// One derived entry that differs from the log's fold, or a damaged key.
public struct Mismatch: Sendable, Hashable, CustomStringConvertible {
    public let database: String
    /// The key, in hex (or the meta key's name).
    public let key: String
    public let problem: String

    public var description: String { "\(database)[\(key)]: \(problem)" }

    /// A stored entry whose value is not the one the log implies.
    static let differs = "value differs from the log's"
    /// A stored entry the log does not imply.
    static let notImplied = "stored but not implied by the log"
    /// An entry the log implies that is not stored.
    static let missing = "implied by the log but missing"
}
