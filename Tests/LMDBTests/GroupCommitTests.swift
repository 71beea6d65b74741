import TestSupport
import Testing
@testable import LMDB
import TestTraits

/// A group commit runs its writes in one transaction (MDB_WRITEMAP has no
/// nested ones). A write that throws must not undo the others, nor be
/// committed itself, and the others, run again without it, must commit
/// exactly once.
@Suite(.hangDeadline) struct GroupCommitTests {
    struct Refused: Error, Equatable {
        let number: Int
    }

    static let counterKey: [UInt8] = Array("counter".utf8)

    @Test func aFailingWriteAmongOthersWritesNothingAndTheOthersCommitOnce() async throws {
        let store = try Store()
        let env = store.env, data = store.data
        let hold = try await WriterHold(env)
        let before = env.info.lastTransactionID
        // Each write adds one to a shared counter, stores its own key, and
        // returns the counter it wrote; every third one then throws. Writes
        // 0, 3, …, 27 fail: ten of thirty.
        let outcomes = Task {
            await withTaskGroup(of: (Int, Result<UInt64, any Error>).self) { group in
                for number in 0..<30 {
                    group.addTask {
                        do {
                            let counted = try await env.write { txn -> UInt64 in
                                let current = try txn.value(forKey: Self.counterKey, in: data).map(Self.decode) ?? 0
                                try txn.put(Self.encode(current + 1), forKey: Self.counterKey, in: data)
                                try txn.put([1], forKey: key(UInt64(number)), in: data)
                                if number % 3 == 0 { throw Refused(number: number) }
                                return current + 1
                            }
                            return (number, .success(counted))
                        } catch {
                            return (number, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [Int: Result<UInt64, any Error>]()) { $0[$1.0] = $1.1 }
            }
        }
        try await Deadline.wait(until: "30 writes queue") { env.writerQueueLength >= 30 }
        try await hold.release()
        let results = await outcomes.value

        let failing = Set(stride(from: 0, to: 30, by: 3))
        for number in 0..<30 {
            switch results[number] {
            case .success:
                #expect(!failing.contains(number), "write \(number) committed")
            case .failure(let error):
                #expect(error as? Refused == Refused(number: number), "write \(number): \(error)")
            case nil:
                Issue.record("write \(number) was not answered")
            }
        }
        // The twenty that committed each counted once, so between them they
        // saw the counter at 1 through 20, each value once.
        let counted = results.values.compactMap { try? $0.get() }
        #expect(counted.sorted() == Array(1...20))
        let stored = try store.contents()
        #expect(stored[Self.counterKey].map(Self.decode) == 20)
        for number in 0..<30 {
            #expect((stored[key(UInt64(number))] != nil) == !failing.contains(number), "key of write \(number)")
        }
        #expect(stored.count == 21)
        // One durable commit for all of them: aborted attempts commit nothing.
        #expect(env.info.lastTransactionID - before == 1)
    }

    static func encode(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    static func decode(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
