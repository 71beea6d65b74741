import CBaseline

extension RedisBenchStore {
    /// The largest value `value(of:)` reads: four times the largest card of
    /// a mixed deck.
    static let largestValue = 256 * 1024

    /// The number of keys the server holds (`DBSIZE`). Not timed.
    func keyCount() throws -> Int { try checked(cb_redis_key_count(opened)) }

    /// The value of key `name` (16 bytes), nil when the server has no such
    /// key. Not timed.
    ///
    /// - Throws: `BenchError.baseline` when the value is larger than
    ///   `largestValue` or the server fails.
    func value(of name: [UInt8]) throws -> [UInt8]? {
        precondition(name.count == 16, "a key is a record name's 16 bytes")
        var buffer = [UInt8](repeating: 0, count: Self.largestValue)
        var size = 0
        let found = cb_redis_get(opened, name, &buffer, buffer.count, &size)
        try check(found < 0 ? -1 : 0)
        return found == 1 ? Array(buffer[..<size]) : nil
    }
}
