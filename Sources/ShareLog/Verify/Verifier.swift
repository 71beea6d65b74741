import Foundation
import LMDB

/// One run of `ShareStore.verify` over one read snapshot: folds the log
/// into windows of record names and of event ids, held in memory, and
/// compares each window with the stored derived databases and counters.
///
/// Every pass reads the whole log and folds the keys of the current
/// windows; the first pass also checks the log itself (keys, gaps,
/// decoding), and the later ones read each entry's facts in place. Passes
/// go on until both kinds of windows have covered their whole key space,
/// so there are about max(shares / names a window, events / ids a window)
/// + 1 of them; each window ends where its derived database's stored keys
/// say it is full, so a consistent store needs no shrink.
///
/// Memory: the two windows reserve `nameBudget` + `eventBudget` (28 MiB)
/// once and reuse it; a revocation, a second creation or a TTL end without
/// a creation adds a small box to its name's fold.
///
/// Each derived key, stored or implied, is compared once, by the window
/// that owns it: the one whose range holds its record name or event id.
/// A stored key that names none (the wrong length, a log entry that is no
/// creation) belongs to the first pass.
struct Verifier {
    /// Event ids a window holds for each record name: a store logs about
    /// two events a share (its creation and its expiry), so both kinds of
    /// window need about as many passes.
    static let eventsPerShare = 2
    /// The memory of the windows, in bytes: 20 MiB of record names (262,144
    /// buckets of 80 bytes: 157,286 names a window, or `windowSize` if
    /// fewer) and 8 MiB of event ids (262,144 buckets of 32 bytes: 157,286
    /// ids), reserved once.
    ///
    /// A trade of memory for passes over the log, measured at a million
    /// events (BENCHMARKS.md, "The engine's hot paths"): 7 MiB in all made
    /// verify 0.33x of C-LMDB's replay, 28 MiB 0.65x (with 18 MiB of RssAnon
    /// growth), where the unbounded dictionaries it replaces grew 61.5 MiB
    /// for 0.45x.
    static let nameBudget = 20 << 20
    static let eventBudget = 8 << 20

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

    /// The record names a window holds: `windowSize`, at most what fits
    /// `nameBudget`.
    static func nameCapacity(windowSize: Int) -> Int {
        min(windowSize, FoldWindow<RecordName, ShareFold>.capacity(budget: nameBudget))
    }

    /// The event ids a window holds: `eventsPerShare` for each name of
    /// `windowSize`, at most what fits `eventBudget`.
    static func eventCapacity(windowSize: Int) -> Int {
        let (wanted, overflow) = windowSize.multipliedReportingOverflow(by: eventsPerShare)
        return min(overflow ? .max : wanted, FoldWindow<EventID, UInt64>.capacity(budget: eventBudget))
    }

    /// The highest log position a trim removed: gaps up to it are expected.
    private var trimmedThrough: UInt64 = 0

    mutating func run(in txn: borrowing ReadTransaction) throws {
        trimmedThrough = try ShareProjection.counter(MetaKey.trimmedThrough, schema: schema, in: txn)
        var shares: FoldWindow<RecordName, ShareFold>? = FoldWindow(from: nil, capacity: Self.nameCapacity(windowSize: windowSize))
        var events: FoldWindow<EventID, UInt64>? = FoldWindow(from: nil, capacity: Self.eventCapacity(windowSize: windowSize))
        var firstPass = true
        while shares != nil || events != nil {
            try presetEnd(of: &shares, from: schema.shares, in: txn)
            try presetEnd(of: &events, from: schema.eventIndex, in: txn)
            try fold(into: &shares, &events, firstPass: firstPass, in: txn)
            if let window = events {
                try compareEventIndex(with: window, in: txn)
            }
            if let window = shares {
                try compareShares(with: window, firstPass: firstPass, in: txn)
            }
            // In place: the windows keep their storage from range to range.
            if events?.advance() == false { events = nil }
            if shares?.advance() == false { shares = nil }
            firstPass = false
        }
        try compareCounters(in: txn)
        try checkTokens(in: txn)
        try checkIdempotencyEntries(in: txn)
    }

    /// Ends `window`'s range before the stored key `capacity` keys past its
    /// start in `database`, the derived database keyed as it is. In a
    /// consistent store the window then holds its `capacity` keys and never
    /// shrinks; in a damaged one this is only a guess, and the shrink still
    /// bounds it. No end when fewer keys are stored.
    private func presetEnd<Key: FoldKey, Value>(
        of window: inout FoldWindow<Key, Value>?, from database: Database, in txn: borrowing ReadTransaction
    ) throws {
        guard let range = window?.keyRange, let capacity = window?.capacity else { return }
        var keysBefore = 0
        var end: Key?
        try txn.scan(database, in: range) { entry in
            guard keysBefore == capacity else {
                keysBefore += 1
                return .proceed
            }
            end = Key(keyBytes: entry.key)
            return end == nil ? .proceed : .stop
        }
        if let end { window?.preset(upperBound: end) }
    }

    /// Reads the whole log once, folding every event into the windows.
    /// The first pass checks and decodes each entry; the later ones skip
    /// the entries it found corrupt and read the facts of the others in
    /// place (`FoldedEvent(decoded:)`).
    private mutating func fold(
        into shares: inout FoldWindow<RecordName, ShareFold>?, _ events: inout FoldWindow<EventID, UInt64>?,
        firstPass: Bool, in txn: borrowing ReadTransaction
    ) throws {
        var expected: UInt64? = 1
        // The corrupt entries, in log order, as the first pass found them.
        var corrupt = report.corruptEvents.makeIterator()
        var nextCorrupt = corrupt.next()?.position
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
            let event: FoldedEvent
            if firstPass {
                checkOrder(of: sequence, expected: &expected)
                do throws(EventDecodingError) { event = FoldedEvent(try EventCodec.decode(entry.value)) } catch {
                    report.corruptEvents.append(CorruptEvent(position: sequence, reason: error.description))
                    return .proceed
                }
                report.events += 1
            } else if sequence == nextCorrupt {
                nextCorrupt = corrupt.next()?.position
                return .proceed
            } else {
                event = FoldedEvent(decoded: entry.value)
            }
            // A later entry of the same id wins, as it does when projected.
            events?.fold(event.id, initial: sequence) { $0 = sequence }
            switch event.kind {
            case let .created(name, createdAt, expiresAt, holdsCard):
                shares?.fold(name, initial: ShareFold()) {
                    $0.add(creationAt: sequence, id: event.id, createdAt: createdAt, expiresAt: expiresAt, holdsCard: holdsCard)
                }
            case let .expired(name, at, reason):
                shares?.fold(name, initial: ShareFold()) { $0.add(endAt: at, id: event.id, reason: reason) }
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
            guard let id = EventID(keyBytes: entry.key), let sequence = window.values[id] else {
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
}
