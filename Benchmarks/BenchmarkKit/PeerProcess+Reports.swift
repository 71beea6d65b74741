import Foundation

/// Reading the lines a follower or a relay peer prints after `ready`
/// (`SyncPeer`): `KIND NANOSECONDS` and `KIND TOTAL NANOSECONDS`, stamped
/// on `CLOCK_MONOTONIC`.
extension PeerProcess {
    /// The numbers of the next line of kind `kind` (its first word), after
    /// any lines of the kinds in `skipping`.
    ///
    /// - Throws: `BenchError.process` for a line of another kind, a number
    ///   that does not parse, or no such line within `timeout`.
    func nextReport(_ kind: String, skipping: [String] = [], within timeout: Duration) throws -> [UInt64] {
        let end = ContinuousClock.now + timeout
        while true {
            let line = try nextLine(within: max(end - ContinuousClock.now, .zero))
            let fields = line.split(separator: " ").map(String.init)
            guard let first = fields.first else { throw BenchError.process("\(what) printed an empty line") }
            if skipping.contains(first) { continue }
            let numbers = fields.dropFirst().compactMap { UInt64($0) }
            guard first == kind, numbers.count == fields.count - 1, !numbers.isEmpty else {
                throw BenchError.process("\(what) printed '\(line)', expected '\(kind) …'")
            }
            return numbers
        }
    }

    /// The stamp of a `kind NANOSECONDS` line.
    func nextStamp(_ kind: String, skipping: [String] = [], within timeout: Duration) throws -> UInt64 {
        let numbers = try nextReport(kind, skipping: skipping, within: timeout)
        guard numbers.count == 1 else { throw BenchError.process("\(what) printed \(kind) with \(numbers.count) numbers, expected a stamp") }
        return numbers[0]
    }

    /// The stamp of the first `kind TOTAL NANOSECONDS` line whose total is
    /// `total`, reading every line before it within `timeout`.
    ///
    /// - Throws: `BenchError.mismatch` when a total passes `total`.
    func stamp(when kind: String, reaches total: Int, skipping: [String] = [], within timeout: Duration) throws -> UInt64 {
        let end = ContinuousClock.now + timeout
        while true {
            let numbers = try nextReport(kind, skipping: skipping, within: max(end - ContinuousClock.now, .zero))
            guard numbers.count == 2 else {
                throw BenchError.process("\(what) printed \(kind) with \(numbers.count) numbers, expected a total and a stamp")
            }
            if numbers[0] == total { return numbers[1] }
            guard numbers[0] < total else { throw BenchError.mismatch("\(what) reports \(kind) \(numbers[0]), expected \(total)") }
        }
    }
}
