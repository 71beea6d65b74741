import TestSupport
import Synchronization
@testable import LMDB

/// An environment in a fresh temporary directory with one database, "data".
struct Store {
    let directory: TemporaryDirectory
    let env: Environment
    let data: Database

    init(options: Environment.Options = Environment.Options(), label: String = #function) throws {
        directory = TemporaryDirectory(label)
        env = try Environment.open(at: directory.path, databases: ["data"], options: options)
        data = try env.database("data")
    }

    /// Every key and value in "data", copied, in key order.
    func contents() throws -> [[UInt8]: [UInt8]] {
        try env.read { txn in
            var all: [[UInt8]: [UInt8]] = [:]
            try txn.scan(data) { entry in
                all[Array(entry.key)] = Array(entry.value)
                return .proceed
            }
            return all
        }
    }
}

/// A counter closures can share across threads.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A big-endian UInt64 key, so byte order equals numeric order.
func key(_ number: UInt64) -> [UInt8] {
    withUnsafeBytes(of: number.bigEndian) { Array($0) }
}
