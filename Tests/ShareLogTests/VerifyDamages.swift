import Foundation
import LMDB
@testable import ShareLog

/// The damages `VerifyTests.verifyReportsEachDamageExactly` makes, one per
/// kind of difference in each derived database, with damaged keys among
/// them. Each names the mismatch it must get by hand: the database, the
/// key in hex and the problem.
extension VerifyTests {
    static let damages: [Damage] = [
        Damage(label: "eventIndex value changed") { test in
            let key = try first(\.eventIndex, of: test)
            try put([0, 0, 0, 0, 0, 0, 3, 0xE7], forKey: key, in: \.eventIndex, of: test)
            return [mismatch("eventIndex", key, "value differs from the log's")]
        },
        Damage(label: "eventIndex entry deleted") { test in
            let key = try first(\.eventIndex, of: test)
            try delete(key, in: \.eventIndex, of: test)
            return [mismatch("eventIndex", key, "implied by the log but missing")]
        },
        Damage(label: "eventIndex entry added") { test in
            let key = [UInt8](repeating: 0xEE, count: 24)
            try put([0, 0, 0, 0, 0, 0, 0, 1], forKey: key, in: \.eventIndex, of: test)
            return [mismatch("eventIndex", key, "stored but not implied by the log")]
        },
        Damage(label: "eventIndex key of the wrong length") { test in
            let key = [UInt8](repeating: 0x11, count: 23)
            try put([0, 0, 0, 0, 0, 0, 0, 1], forKey: key, in: \.eventIndex, of: test)
            return [mismatch("eventIndex", key, "stored but not implied by the log")]
        },
        Damage(label: "shares value changed") { test in
            let key = try first(\.shares, of: test)
            var value = try test.contents(of: \.shares)[key] ?? []
            value[3] ^= 0x01
            try put(value, forKey: key, in: \.shares, of: test)
            return [mismatch("shares", key, "value differs from the log's")]
        },
        Damage(label: "shares creation position changed") { test in
            // A pending share's state is 50 bytes; its creation's log
            // position ends it (FORMAT.md).
            let shares = try test.contents(of: \.shares)
            guard let key = shares.keys.sorted(by: precedes).first(where: { shares[$0]?.count == 50 }), var value = shares[key] else { return [] }
            value[49] ^= 0x20
            try put(value, forKey: key, in: \.shares, of: test)
            return [mismatch("shares", key, "value differs from the log's")]
        },
        Damage(label: "shares entry deleted") { test in
            let key = try first(\.shares, of: test)
            try delete(key, in: \.shares, of: test)
            return [mismatch("shares", key, "implied by the log but missing")]
        },
        Damage(label: "shares entry added") { test in
            let key = [UInt8](repeating: 0xEE, count: 16)
            try put(test.contents(of: \.shares)[first(\.shares, of: test)] ?? [], forKey: key, in: \.shares, of: test)
            return [mismatch("shares", key, "stored but not implied by the log")]
        },
        Damage(label: "shares key of the wrong length") { test in
            let key = try first(\.shares, of: test) + [0]
            try put(test.contents(of: \.shares)[first(\.shares, of: test)] ?? [], forKey: key, in: \.shares, of: test)
            return [mismatch("shares", key, "stored but not implied by the log")]
        },
        Damage(label: "expiry entry deleted") { test in
            let key = try first(\.expiry, of: test)
            try delete(key, in: \.expiry, of: test)
            return [mismatch("expiry", key, "implied by the log but missing")]
        },
        Damage(label: "expiry entry of a live share at another time added") { test in
            var key = try first(\.expiry, of: test)
            key[7] &+= 1
            try put([], forKey: key, in: \.expiry, of: test)
            return [mismatch("expiry", key, "stored but not implied by the log")]
        },
        Damage(label: "expiry value changed") { test in
            let key = try first(\.expiry, of: test)
            var value = try test.contents(of: \.expiry)[key] ?? []
            value[7] ^= 0x01
            try put(value, forKey: key, in: \.expiry, of: test)
            return [mismatch("expiry", key, "value differs from the log's")]
        },
        Damage(label: "expiry value of the wrong length") { test in
            let key = try first(\.expiry, of: test)
            try put((try test.contents(of: \.expiry)[key] ?? []).dropLast(), forKey: key, in: \.expiry, of: test)
            return [mismatch("expiry", key, "value differs from the log's")]
        },
        Damage(label: "expiry key of the wrong length") { test in
            let key = try first(\.expiry, of: test).dropLast(1).map { $0 }
            try put([], forKey: key, in: \.expiry, of: test)
            return [mismatch("expiry", key, "stored but not implied by the log")]
        },
        Damage(label: "pendingRedactions entry deleted") { test in
            let key = try first(\.pendingRedactions, of: test)
            try delete(key, in: \.pendingRedactions, of: test)
            return [mismatch("pendingRedactions", key, "implied by the log but missing")]
        },
        Damage(label: "pendingRedactions entry of a live share's creation added") { test in
            // Log entry 4 is the creation of share 3, live with its card
            // (share 2's creation may have lost to its rival's, which queues it).
            let key: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 4]
            try put([], forKey: key, in: \.pendingRedactions, of: test)
            return [mismatch("pendingRedactions", key, "stored but not implied by the log")]
        },
        Damage(label: "pendingRedactions entry of an expiry added") { test in
            // Log entry 7 is the revocation of share 5.
            let key: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 7]
            try put([], forKey: key, in: \.pendingRedactions, of: test)
            return [mismatch("pendingRedactions", key, "stored but not implied by the log")]
        },
        Damage(label: "pendingRedactions value not empty") { test in
            let key = try first(\.pendingRedactions, of: test)
            try put([0], forKey: key, in: \.pendingRedactions, of: test)
            return [mismatch("pendingRedactions", key, "value differs from the log's")]
        },
        Damage(label: "pendingRedactions key of the wrong length") { test in
            let key: [UInt8] = [0, 0, 0, 0, 0, 0, 9]
            try put([], forKey: key, in: \.pendingRedactions, of: test)
            return [mismatch("pendingRedactions", key, "stored but not implied by the log")]
        },
        Damage(label: "live counter changed") { test in
            try put([0, 0, 0, 0, 0, 0, 3, 0xE7], forKey: Array("live-count".utf8), in: \.meta, of: test)
            return [Mismatch(database: "meta", key: "live-count", problem: "stored 999, log implies 3")]
        },
        Damage(label: "expired counter changed") { test in
            try put([0, 0, 0, 0, 0, 0, 0, 0], forKey: Array("expired-count".utf8), in: \.meta, of: test)
            return [Mismatch(database: "meta", key: "expired-count", problem: "stored 0, log implies 6")]
        },
    ]

    static func mismatch(_ database: String, _ key: [UInt8], _ problem: String) -> Mismatch {
        Mismatch(database: database, key: key.map { String(format: "%02x", $0) }.joined(), problem: problem)
    }

    static func precedes(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool { lhs.lexicographicallyPrecedes(rhs) }

    /// The smallest key of a database.
    static func first(_ database: KeyPath<Schema, Database>, of test: TestStore) throws -> [UInt8] {
        try test.contents(of: database).keys.sorted(by: precedes).first ?? []
    }

    static func put(_ value: [UInt8], forKey key: [UInt8], in database: KeyPath<Schema, Database>, of test: TestStore) throws {
        let db = test.store.schema[keyPath: database]
        try test.store.environment.write { txn in try txn.put(value, forKey: key, in: db) }
    }

    static func delete(_ key: [UInt8], in database: KeyPath<Schema, Database>, of test: TestStore) throws {
        let db = test.store.schema[keyPath: database]
        try test.store.environment.write { txn in _ = try txn.delete(key, in: db) }
    }
}
