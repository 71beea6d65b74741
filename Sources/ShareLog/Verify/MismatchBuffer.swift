/// Mismatches of one database that `verify` finds out of key order (by
/// looking up what each name implies), held until the window's walk ends
/// and then recorded in key order.
///
/// Bounded: it lists the first `limit` and counts the rest, as the report
/// does, so a database damaged throughout costs no memory per entry.
struct MismatchBuffer {
    /// Mismatches listed, at most: the report's own limit.
    static let limit = 100

    let database: String
    private(set) var listed: [(key: [UInt8], problem: String)] = []
    private(set) var unlisted = 0

    init(database: String) { self.database = database }

    mutating func add(key: [UInt8], problem: String) {
        if listed.count < Self.limit { listed.append((key, problem)) } else { unlisted += 1 }
    }

    /// The listed mismatches in key order, and how many more were found.
    func sorted() -> (mismatches: [Mismatch], unlisted: Int) {
        let inOrder = listed.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        return (inOrder.map { Mismatch(database: database, key: Key.hex($0.key), problem: $0.problem) }, unlisted)
    }
}
