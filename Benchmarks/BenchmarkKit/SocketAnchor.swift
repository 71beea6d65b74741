import CBaseline

/// The floor of sync between two processes: what a Unix-domain socket alone
/// costs, between this process and a child it forks (`cb_socket_copy`,
/// `cb_socket_round_trips`). The child only reads, counts or echoes, and
/// writes; the fork is outside every clock.
enum SocketAnchor {
    /// Copies `bytes` bytes to the child in 64 KiB writes; the child counts
    /// what it reads until end of file and answers the count.
    ///
    /// - Returns: the count the child answered, timed from the first write
    ///   to the answer's arrival.
    /// - Throws: `BenchError.process` when the socket, the fork or the child
    ///   fails, or the child does not answer within 60 s.
    static func copy(bytes: Int) throws -> Timed<Int> {
        var received: UInt64 = 0
        var elapsed: UInt64 = 0
        var error = [CChar](repeating: 0, count: 256)
        try check(cb_socket_copy(UInt64(bytes), &received, &elapsed, &error, error.count), error)
        return Timed(value: Int(received), seconds: Double(elapsed) * 1e-9)
    }

    /// `rounds` round trips of a `messageBytes`-byte message (8 to 4,096),
    /// one at a time, each echoed whole by the child and checked.
    ///
    /// - Returns: each round trip's time in seconds, in order.
    /// - Throws: `BenchError.process` when the socket, the fork or the child
    ///   fails, an echo differs from its message, or one takes over 60 s.
    static func roundTrips(_ rounds: Int, messageBytes: Int = 64) throws -> [Double] {
        var times = [UInt64](repeating: 0, count: rounds)
        var error = [CChar](repeating: 0, count: 256)
        try check(cb_socket_round_trips(rounds, messageBytes, &times, &error, error.count), error)
        return times.map { Double($0) * 1e-9 }
    }

    private static func check(_ rc: Int32, _ error: [CChar]) throws {
        guard rc != 0 else { return }
        throw BenchError.process("socket anchor: \(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))")
    }
}
