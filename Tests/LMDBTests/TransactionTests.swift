import Foundation
import TestSupport
import Testing
@testable import LMDB

@Suite struct TransactionTests {
    struct Refused: Error {}

    @Test func writeCommitsWhenTheClosureReturns() throws {
        let store = try Store()
        let data = store.data
        try store.env.write { txn in try txn.put([9, 9], forKey: [1], in: data) }
        #expect(try store.contents() == [[1]: [9, 9]])
    }

    @Test func writeAbortsWhenTheClosureThrows() throws {
        let store = try Store()
        let data = store.data
        #expect(throws: Refused.self) {
            try store.env.write { txn in
                try txn.put([9], forKey: [1], in: data)
                throw Refused()
            }
        }
        #expect(try store.contents().isEmpty)
    }

    @Test func writeReturnsTheClosureResult() throws {
        let store = try Store()
        let data = store.data
        let count = try store.env.write { txn in
            try txn.put([1], forKey: [1], in: data)
            try txn.put([2], forKey: [2], in: data)
            return try txn.count(in: data)
        }
        #expect(count == 2)
    }

    @Test func zeroCopyAndCopyingReadsAgree() throws {
        let store = try Store()
        let data = store.data
        let payload = [UInt8]((0..<5000).map { UInt8(truncatingIfNeeded: $0) })
        try store.env.write { txn in try txn.put(payload, forKey: Array("k".utf8), in: data) }
        let (sum, copy, absent, contains) = try store.env.read { txn in
            (
                try txn.withValue(forKey: Array("k".utf8), in: data) { bytes in bytes.reduce(0) { $0 + Int($1) } },
                try txn.value(forKey: Array("k".utf8), in: data),
                try txn.value(forKey: Array("absent".utf8), in: data),
                try txn.contains(Array("k".utf8), in: data)
            )
        }
        #expect(sum == payload.reduce(0) { $0 + Int($1) })
        #expect(copy == payload)
        #expect(absent == nil)
        #expect(contains)
    }

    @Test func reservedPutIsFilledInPlace() throws {
        let store = try Store()
        let data = store.data
        try store.env.write { txn in
            try txn.put(reservingCount: 3, forKey: [1], in: data) { buffer in
                buffer.copyBytes(from: [7, 8, 9])
            }
        }
        #expect(try store.contents() == [[1]: [7, 8, 9]])
    }

    @Test func appendOutOfOrderFailsAndLeavesTheTransactionUsable() throws {
        let store = try Store()
        let data = store.data
        let refused = try store.env.write { txn -> Bool in
            for number: UInt64 in 1...3 { try txn.put([1], forKey: key(number), in: data, flags: .append) }
            var refused = false
            do { try txn.put([1], forKey: key(2), in: data, flags: .append) } catch LMDBError.keyExists { refused = true }
            try txn.put([1], forKey: key(4), in: data, flags: .append)
            return refused
        }
        #expect(refused)
        #expect(try store.contents().keys.sorted { $0.lexicographicallyPrecedes($1) } == (1...4).map { key($0) })
    }

    @Test func noOverwriteKeepsTheExistingValue() throws {
        let store = try Store()
        let data = store.data
        try store.env.write { txn in try txn.put([1], forKey: [5], in: data) }
        #expect(throws: LMDBError.keyExists) {
            try store.env.write { txn in try txn.put([2], forKey: [5], in: data, flags: .noOverwrite) }
        }
        #expect(try store.contents() == [[5]: [1]])
    }

    @Test func deleteReportsWhetherTheKeyWasThere() throws {
        let store = try Store()
        let data = store.data
        let (first, second) = try store.env.write { txn in
            try txn.put([1], forKey: [5], in: data)
            return (try txn.delete([5], in: data), try txn.delete([5], in: data))
        }
        #expect(first && !second)
        #expect(try store.contents().isEmpty)
    }

    @Test func removeAllEmptiesOnlyThatDatabase() throws {
        let dir = TemporaryDirectory()
        let env = try Environment.open(at: dir.path, databases: ["a", "b"])
        let a = try env.database("a"), b = try env.database("b")
        try env.write { txn in
            try txn.put([1], forKey: [1], in: a)
            try txn.put([1], forKey: [1], in: b)
        }
        try env.write { txn in try txn.removeAll(in: a) }
        let counts = try env.read { txn in (try txn.count(in: a), try txn.count(in: b)) }
        #expect(counts == (0, 1))
    }

    @Test(arguments: [0, 512, 4096])
    func keysOutsideTheSizeLimitAreRefusedAndNothingIsWritten(size: Int) throws {
        let store = try Store()
        let data = store.data
        #expect(store.env.maxKeySize == 511)
        let error = #expect(throws: LMDBError.badKeySize) {
            try store.env.write { txn in try txn.put([1], forKey: [UInt8](repeating: 1, count: size), in: data) }
        }
        #expect(error?.description.contains("\(size) bytes") == true)
        #expect(try store.contents().isEmpty)
    }

    @Test func theLargestKeyIsAccepted() throws {
        let store = try Store()
        let data = store.data
        let longest = [UInt8](repeating: 1, count: 511)
        try store.env.write { txn in try txn.put([1], forKey: longest, in: data) }
        #expect(try store.contents() == [longest: [1]])
    }

    @Test func aRefusedKeyLeavesTheTransactionUsable() throws {
        let store = try Store()
        let data = store.data
        try store.env.write { txn in
            _ = try? txn.put([1], forKey: [UInt8](repeating: 1, count: 600), in: data)
            try txn.put([2], forKey: [2], in: data)
        }
        #expect(try store.contents() == [[2]: [2]])
    }

    @Test func aDatabaseOfAnotherEnvironmentIsRefused() throws {
        let one = try Store(), other = try Store()
        let foreign = other.data
        #expect(throws: LMDBError.foreignDatabase) {
            try one.env.write { txn in try txn.put([1], forKey: [1], in: foreign) }
        }
    }

    @Test func undeclaredDatabaseNamesAreRefused() throws {
        let store = try Store()
        #expect(throws: LMDBError.unknownDatabase) { try store.env.database("nope") }
    }
}
