import Foundation
import LMDB

/// One run of `ShareStore.verify` over one read snapshot: folds the log
/// into windows of record names and of event ids, held in memory, and
/// compares each window with the stored derived databases and counters.
///
/// Every pass reads the whole log and folds the keys of the current
/// windows; the first pass also checks the log itself (keys, gaps,
/// decoding). Passes go on until both kinds of windows have covered their
/// whole key space, so there are about max(shares / windowSize,
/// events / (2 × windowSize)) + 1 of them.
///
/// Each derived key, stored or implied, is compared once, by the window
/// that owns it: the one whose range holds its record name or event id.
/// A stored key that names none (the wrong length, a log entry that is no
/// creation) belongs to the first pass.
struct Verifier {
    /// Event ids a window holds for each record name: a store logs about
    /// two events a share (its creation and its expiry), so both kinds of
    /// window need about as many passes; an id and its sequence take a
    /// small part of the memory of a share's fold.
    static let eventsPerShare = 2

    let schema: Schema
    let windowSize: Int
    let chunkSize: Int
    let progress: ((Int) -> Void)?
    /// Checked after each chunk: a cancelled run stops there.
    let cancellation: CancellationFlag?
    private(set) var report = VerificationReport()
    /// Log entries read, over every pass.
    private var entriesRead = 0
    /// Shares the log implies live, and expired, over the windows so far.
    var impliedLive: UInt64 = 0
    var impliedExpired: UInt64 = 0

    init(schema: Schema, windowSize: Int, chunkSize: Int, progress: ((Int) -> Void)?, cancellation: CancellationFlag? = nil) {
        precondition(windowSize > 0 && chunkSize > 0, "verify needs a window and a chunk of at least one")
        self.schema = schema
        self.windowSize = windowSize
        self.chunkSize = chunkSize
        self.progress = progress
        self.cancellation = cancellation
    }

    /// The highest log position a trim removed: gaps up to it are expected.
    private var trimmedThrough: UInt64 = 0

    mutating func run(in txn: borrowing ReadTransaction) throws {
        trimmedThrough = try ShareProjection.counter(MetaKey.trimmedThrough, schema: schema, in: txn)
        var shares: FoldWindow<RecordName, ShareFold>? = FoldWindow(from: nil, capacity: windowSize)
        let (eventCapacity, overflow) = windowSize.multipliedReportingOverflow(by: Self.eventsPerShare)
        var events: FoldWindow<EventID, UInt64>? = FoldWindow(from: nil, capacity: overflow ? .max : eventCapacity)
        var firstPass = true
        while shares != nil || events != nil {
            try fold(into: &shares, &events, firstPass: firstPass, in: txn)
            if let window = events {
                try compareEventIndex(with: window, in: txn)
                events = window.next
            }
            if let window = shares {
                try compareShares(with: window, firstPass: firstPass, in: txn)
                shares = window.next
            }
            firstPass = false
        }
        try compareCounters(in: txn)
        try checkTokens(in: txn)
        try checkIdempotencyEntries(in: txn)
    }

    /// Reads the whole log once, folding every event into the windows.
    private mutating func fold(
        into shares: inout FoldWindow<RecordName, ShareFold>?, _ events: inout FoldWindow<EventID, UInt64>?,
        firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        var expected: UInt64? = 1
        try txn.scan(schema.log) { entry in
            entriesRead += 1
            if entriesRead % chunkSize == 0 {
                progress?(entriesRead)
                try cancellation?.check()
            }
            guard let sequence = Key.integer(entry.key, as: UInt64.self) else {
                if firstPass { record(Mismatch(database: "log", key: Key.hex(entry.key), problem: "not an 8-byte log position")) }
                return .proceed
            }
            if firstPass { checkOrder(of: sequence, expected: &expected) }
            let event: Event
            do throws(EventDecodingError) { event = try EventCodec.decode(entry.value) } catch {
                if firstPass { report.corruptEvents.append(CorruptEvent(position: sequence, reason: error.description)) }
                return .proceed
            }
            if firstPass { report.events += 1 }
            // A later entry of the same id wins, as it does when projected.
            events?.fold(event.id, initial: sequence) { $0 = sequence }
            switch event.kind {
            case .shareCreated(let created):
                shares?.fold(created.recordName, initial: ShareFold()) { $0.add(created, id: event.id, at: sequence) }
            case .shareExpired(let expired):
                shares?.fold(expired.recordName, initial: ShareFold()) { $0.add(expired, id: event.id) }
            case .unknown:
                break
            }
            return .proceed
        }
        if entriesRead % chunkSize != 0 { progress?(entriesRead) }
    }

    /// Records a gap before `sequence`, or a sequence no store writes. A
    /// gap that ends at or before `trimmedThrough` is a trim's, not damage.
    /// Overflow-safe: nothing follows `UInt64.max` in key order.
    private mutating func checkOrder(of sequence: UInt64, expected: inout UInt64?) {
        if sequence == 0 {
            record(Mismatch(database: "log", key: Key.hex(Key.sequence(0)), problem: "log positions start at 1"))
        } else if let next = expected, sequence > next, sequence - 1 > trimmedThrough {
            report.positionGaps.append(max(next, trimmedThrough + 1))
        }
        expected = sequence < .max ? sequence + 1 : nil
    }

    /// Compares `eventIndex` over the window's range of event ids.
    private mutating func compareEventIndex(with window: FoldWindow<EventID, UInt64>, in txn: borrowing ReadTransaction) throws {
        let database = schema.eventIndex
        try txn.scan(database, in: window.keyRange) { entry in
            report.entriesCompared += 1
            guard let id = Self.eventID(entry.key), let sequence = window.values[id] else {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.notImplied))
                return .proceed
            }
            if !Self.equal(entry.value, Key.sequence(sequence)) {
                record(Mismatch(database: database.name, key: Key.hex(entry.key), problem: Mismatch.differs))
            }
            return .proceed
        }
        try expectStored(window.values.keys.lazy.map(\.keyBytes), in: database, txn)
    }

    /// Compares the stored counters with the shares the windows counted.
    private mutating func compareCounters(in txn: borrowing ReadTransaction) throws {
        for (key, implied) in [(MetaKey.liveCount, impliedLive), (MetaKey.expiredCount, impliedExpired)] {
            let name = String(decoding: key, as: UTF8.self)
            switch try txn.withValue(forKey: key, in: schema.meta, { Key.integer($0, as: UInt64.self) }) {
            case .some(nil):
                record(Mismatch(database: "meta", key: name, problem: "not an 8-byte count"))
            case let stored:
                let count = stored.flatMap { $0 } ?? 0
                if count != implied {
                    record(Mismatch(database: "meta", key: name, problem: "stored \(count), log implies \(implied)"))
                }
            }
        }
    }

    /// Records, in key order, each of the implied `keys` that `database`
    /// lacks. (A key it holds was compared when it was read.)
    mutating func expectStored(_ keys: some Sequence<[UInt8]>, in database: Database, _ txn: borrowing ReadTransaction) throws {
        var missing: [[UInt8]] = []
        for key in keys where try !txn.contains(key, in: database) { missing.append(key) }
        for key in missing.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            report.entriesCompared += 1
            record(Mismatch(database: database.name, key: Key.hex(key), problem: Mismatch.missing))
        }
    }

    mutating func record(_ mismatch: Mismatch) { report.record(mismatch) }

    mutating func countCompared() { report.entriesCompared += 1 }

    /// True when `stored` holds exactly `bytes`.
    static func equal(_ stored: UnsafeRawBufferPointer, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { bytes in
            guard stored.count == bytes.count else { return false }
            guard let left = stored.baseAddress, let right = bytes.baseAddress else { return true }
            return memcmp(left, right, bytes.count) == 0
        }
    }

    /// The event id an `eventIndex` key holds, or nil for another length.
    private static func eventID(_ key: UnsafeRawBufferPointer) -> EventID? {
        guard key.count == 24, let sequence = Key.integer(UnsafeRawBufferPointer(rebasing: key[16...]), as: UInt64.self) else {
            return nil
        }
        return EventID(origin: ReplicaID(bytes: key[..<16]), counter: sequence)
    }
}
