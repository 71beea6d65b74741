import Foundation
import LMDB

extension ShareStore {
    /// Rebuilds every derived database from the log in a scratch store and
    /// compares it with the stored one, entry by entry.
    ///
    /// Checks one snapshot: the store is read in a single read transaction
    /// for the whole run, so writers go on but map growth waits for it, and
    /// the file may grow while it lasts. The scratch store lives in a
    /// temporary directory and is removed afterwards. Cost: O(log + derived
    /// entries) time; memory is bounded by `chunkSize` events.
    ///
    /// - Parameter progress: called with the number of events folded so far.
    public func verify(chunkSize: Int = 10_000, progress: ((Int) -> Void)? = nil) throws -> VerificationReport {
        let scratchPath = (NSTemporaryDirectory() as NSString)
            .appendingPathComponent("sharelog-verify-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: scratchPath) }
        var scratchOptions = Environment.Options()
        scratchOptions.durability = .noSync
        let scratch = try Environment.open(at: scratchPath, databases: Schema.names, options: scratchOptions)
        let scratchSchema = try Schema(scratch)
        let rebuild = ShareProjection(schema: scratchSchema)

        return try environment.read { txn in
            var report = VerificationReport()
            var chunk: [LoggedEvent] = []
            func flush() throws {
                let events = chunk
                try scratch.write { scratchTxn in
                    for logged in events { try rebuild.apply(logged.event, at: logged.sequence, in: scratchTxn) }
                }
                report.events += chunk.count
                progress?(report.events)
                chunk.removeAll(keepingCapacity: true)
            }
            var expected: UInt64 = 1
            try txn.scan(schema.log) { entry in
                let sequence = Key.integer(entry.key, as: UInt64.self) ?? 0
                if sequence != expected { report.sequenceGaps.append(expected) }
                expected = sequence + 1
                do throws(EventDecodingError) {
                    chunk.append(LoggedEvent(sequence: sequence, event: try EventCodec.decode(entry.value), size: entry.value.count))
                } catch {
                    report.corruptEvents.append(CorruptEvent(sequence: sequence, reason: error.description))
                }
                if chunk.count >= chunkSize { try flush() }
                return .proceed
            }
            try flush()
            try scratch.read { rebuilt in
                for (stored, derived) in zip(schema.derived, scratchSchema.derived) {
                    try Self.compare(stored, in: txn, with: derived, in: rebuilt, into: &report)
                }
                for key in [MetaKey.liveCount, MetaKey.expiredCount] {
                    let storedCount = try ShareProjection.counter(key, schema: schema, in: txn)
                    let rebuiltCount = try ShareProjection.counter(key, schema: scratchSchema, in: rebuilt)
                    if storedCount != rebuiltCount {
                        report.mismatches.append(Mismatch(
                            database: "meta", key: String(decoding: key, as: UTF8.self),
                            problem: "stored \(storedCount), log implies \(rebuiltCount)"))
                    }
                }
            }
            return report
        }
    }

    /// Walks two databases in key order side by side, recording every key
    /// missing from either and every differing value (up to a limit).
    private static func compare(
        _ stored: Database, in storedTxn: borrowing ReadTransaction,
        with rebuilt: Database, in rebuiltTxn: borrowing ReadTransaction,
        into report: inout VerificationReport
    ) throws {
        try storedTxn.withCursor(on: stored) { left in
            try rebuiltTxn.withCursor(on: rebuilt) { right in
                var a = try left.first(), b = try right.first()
                while a != nil || b != nil {
                    report.entriesCompared += 1
                    let order: Int
                    switch (a, b) {
                    case let (x?, y?): order = compareBytes(x.key, y.key)
                    case (_?, nil): order = -1
                    default: order = 1
                    }
                    if order == 0 {
                        if compareBytes(a!.value, b!.value) != 0 {
                            report.record(Mismatch(database: stored.name, key: hex(a!.key), problem: "value differs from the log's"))
                        }
                        a = try left.next()
                        b = try right.next()
                    } else if order < 0 {
                        report.record(Mismatch(database: stored.name, key: hex(a!.key), problem: "stored but not implied by the log"))
                        a = try left.next()
                    } else {
                        report.record(Mismatch(database: stored.name, key: hex(b!.key), problem: "implied by the log but missing"))
                        b = try right.next()
                    }
                }
            }
        }
    }

    /// LMDB's key order (memcmp over the common length, then shorter
    /// first); 0 when the bytes are equal.
    private static func compareBytes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
        let common = min(lhs.count, rhs.count)
        if common > 0, let left = lhs.baseAddress, let right = rhs.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return lhs.count - rhs.count
    }

    private static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// What `verify` found.
public struct VerificationReport: Sendable, Hashable {
    /// Log entries folded.
    public var events = 0
    /// Derived entries compared.
    public var entriesCompared = 0
    /// Derived entries that differ from what the log implies (the first 100).
    public var mismatches: [Mismatch] = []
    /// Mismatches beyond those listed.
    public var unlistedMismatches = 0
    /// Log entries that do not decode.
    public var corruptEvents: [CorruptEvent] = []
    /// Local sequences missing from the log.
    public var sequenceGaps: [UInt64] = []

    /// True when the projections equal the fold of the log.
    public var isConsistent: Bool {
        mismatches.isEmpty && corruptEvents.isEmpty && sequenceGaps.isEmpty
    }

    mutating func record(_ mismatch: Mismatch) {
        if mismatches.count < 100 { mismatches.append(mismatch) } else { unlistedMismatches += 1 }
    }
}

/// One derived entry that differs from the log's fold.
public struct Mismatch: Sendable, Hashable, CustomStringConvertible {
    public let database: String
    /// The key, in hex (or the meta key's name).
    public let key: String
    public let problem: String

    public var description: String { "\(database)[\(key)]: \(problem)" }
}

/// A log entry that does not decode.
public struct CorruptEvent: Sendable, Hashable, CustomStringConvertible {
    public let sequence: UInt64
    public let reason: String

    public var description: String { "log entry \(sequence): \(reason)" }
}
