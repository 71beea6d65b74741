import Foundation
import LMDB

/// One run of `ShareStore.verify` over one read snapshot: folds the log
/// by record name in windows (`NameWindow`) and compares each window with
/// the stored derived databases and counters, and checks `eventIndex`
/// entry by entry against the log.
///
/// Every pass reads the whole log and keeps the events of the current
/// window's names; the first pass also checks the log itself (keys, gaps,
/// decoding) and looks up each entry's id in `eventIndex`, and the later
/// ones read each entry's name in place. Passes go on until the windows
/// have covered every name: about (logged creations and expirations) /
/// (the window's 262,144 entries) of them, and one more for a damaged
/// `eventIndex` with more suspect ids than a window holds. Each window's
/// range ends where `shares` says it holds about as many events as it has
/// room for, so a consistent store needs no shrink.
///
/// Memory: the name window reserves `nameBudget` (6 MiB) once and reuses
/// it, and the ids whose `eventIndex` entry did not name the log entry
/// holding them (none, in a consistent store) are kept in at most
/// `suspectBudget` (1 MiB); folding one name at a time adds that name's
/// `ShareFold` for a moment.
///
/// Each derived key, stored or implied, is compared once, by the window
/// that owns it: the one whose range holds its record name or event id.
/// A stored key that names none (the wrong length, a log entry that is no
/// creation) belongs to the first pass.
struct Verifier {
    /// The memory of the name window, in bytes: 262,144 entries of 24 bytes
    /// (a record name and a log position), one for each logged event of
    /// the window's names, reserved once.
    ///
    /// A trade of memory for passes over the log, measured at a million
    /// events (BENCHMARKS.md, "The engine's hot paths").
    static let nameBudget = 6 << 20
    /// The memory for ids whose `eventIndex` entry must be compared with
    /// the log (`FoldWindow` buckets of 32 bytes: 19,660 ids a pass).
    static let suspectBudget = 1 << 20

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

    /// The entries a name window holds: two events for each name of
    /// `windowSize` (at least 16), at most what fits `nameBudget`.
    static func nameCapacity(windowSize: Int) -> Int {
        let budget = nameBudget / NameWindow.entryBytes
        return windowSize >= budget / 2 ? budget : max(16, windowSize * 2)
    }

    /// The names a window's range is preset to hold: `windowSize`, at most
    /// as many as `capacity` entries hold at the store's mean of logged
    /// events per stored name, with a thirty-second to spare.
    static func namesPerWindow(windowSize: Int, capacity: Int, names: Int, events: Int) -> Int {
        let fitting = Double(capacity) * Double(names) / Double(max(events, names, 1)) * 31 / 32
        return max(1, min(windowSize, Int(fitting)))
    }

    /// The ids a suspect window holds.
    static var suspectCapacity: Int { FoldWindow<EventID, UInt64>.capacity(budget: suspectBudget) }

    /// The highest log position a trim removed: gaps up to it are expected.
    private var trimmedThrough: UInt64 = 0

    mutating func run(in txn: borrowing ReadTransaction) throws {
        trimmedThrough = try ShareProjection.counter(MetaKey.trimmedThrough, schema: schema, in: txn)
        let capacity = Self.nameCapacity(windowSize: windowSize)
        let namesPerWindow = Self.namesPerWindow(
            windowSize: windowSize, capacity: capacity,
            names: try txn.count(in: schema.shares), events: try txn.count(in: schema.log))
        var names: NameWindow? = NameWindow(capacity: capacity)
        var suspects: FoldWindow<EventID, UInt64>? = FoldWindow(from: nil, capacity: min(Self.suspectCapacity, windowSize))
        var firstPass = true
        while names != nil || suspects != nil {
            try presetEnd(of: &names, holding: namesPerWindow, in: txn)
            try fold(into: &names, &suspects, firstPass: firstPass, in: txn)
            if let window = suspects {
                try compareEventIndex(with: window, in: txn)
            }
            names?.sort()
            if let window = names {
                try compareShares(with: window, firstPass: firstPass, in: txn)
            }
            // In place: the windows keep their storage from range to range.
            if suspects?.advance() == false { suspects = nil }
            if names?.advance() == false { names = nil }
            firstPass = false
        }
        try compareCounters(in: txn)
        try checkTokens(in: txn)
        try checkIdempotencyEntries(in: txn)
    }

    /// Ends `window`'s range before the stored `shares` key `names` keys
    /// past its start. In a consistent store the window then holds about
    /// as many events as it has room for and never shrinks; in a damaged
    /// one this is only a guess, and the shrink still bounds it. No end
    /// when fewer keys are stored.
    private func presetEnd(of window: inout NameWindow?, holding names: Int, in txn: borrowing ReadTransaction) throws {
        guard let range = window?.keyRange else { return }
        var keysBefore = 0
        var end: RecordName?
        try txn.scan(schema.shares, in: range) { entry in
            guard keysBefore == names else {
                keysBefore += 1
                return .proceed
            }
            end = RecordName(keyBytes: entry.key)
            return end == nil ? .proceed : .stop
        }
        if let end { window?.preset(upperBound: end) }
    }

    /// Reads the whole log once, keeping the events of the name window's
    /// names and checking the suspect window's ids in `eventIndex`. The
    /// first pass checks and decodes each entry; the later ones skip the
    /// entries it found corrupt and read the others in place
    /// (`FoldedEvent(decoded:)`).
    private mutating func fold(
        into names: inout NameWindow?, _ suspects: inout FoldWindow<EventID, UInt64>?,
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
            if firstPass {
                checkOrder(of: sequence, expected: &expected)
                do throws(EventDecodingError) { try EventCodec.check(entry.value) } catch {
                    report.corruptEvents.append(CorruptEvent(position: sequence, reason: error.description))
                    return .proceed
                }
                report.events += 1
            } else if sequence == nextCorrupt {
                nextCorrupt = corrupt.next()?.position
                return .proceed
            }
            let event = FoldedEvent(decoded: entry.value)
            if suspects != nil {
                try checkIndexEntry(of: event.id, at: sequence, suspects: &suspects!, in: txn)
            }
            switch event.kind {
            case .created(let name, _, _, _), .expired(let name, _, _):
                names?.add(name, at: sequence)
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

    mutating func record(_ mismatch: Mismatch) { report.record(mismatch) }

    mutating func countCompared() { report.entriesCompared += 1 }

    /// Counts mismatches found beyond those a buffer listed.
    mutating func countUnlisted(_ count: Int) { report.unlistedMismatches += count }

    /// True when `stored` holds exactly `bytes`.
    static func equal(_ stored: UnsafeRawBufferPointer, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { bytes in
            guard stored.count == bytes.count else { return false }
            guard let left = stored.baseAddress, let right = bytes.baseAddress else { return true }
            return memcmp(left, right, bytes.count) == 0
        }
    }
}
