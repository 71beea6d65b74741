import CBaseline

/// A store of one of the C baselines (CBaseline): ShareLog's schema on raw
/// LMDB, or SQLite. The C functions time their own work.
final class CBaselineStore: LoggedBenchStore {
    let system: BenchSystem
    private var handle: OpaquePointer?

    /// - Precondition: `system` is `.cLMDB` or `.sqlite`.
    init(_ system: BenchSystem, path: String, durable: Bool) throws {
        precondition(system == .cLMDB || system == .sqlite, "\(system.rawValue) is not an embedded C baseline")
        self.system = system
        var error = [CChar](repeating: 0, count: 512)
        handle = system == .cLMDB
            ? cb_lmdb_open(path, durable ? 1 : 0, &error, error.count)
            : cb_sqlite_open(path, durable ? 1 : 0, &error, error.count)
        if handle == nil { throw BenchError.baseline(system, String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)) }
    }

    deinit { close() }

    private var opened: OpaquePointer {
        guard let handle else { preconditionFailure("the \(system.rawValue) store was closed") }
        return handle
    }

    /// Throws the store's own account of a failed call.
    private func check(_ rc: Int32) throws {
        guard rc != 0 else { return }
        let message = system == .cLMDB ? cb_lmdb_error(opened) : cb_sqlite_error(opened)
        throw BenchError.baseline(system, message.map { String(cString: $0) } ?? "error \(rc)")
    }

    func create(
        _ deck: CardDeck, first: Int, count: Int, batch: Int, creators: Int, createdAt: Int64, ttl: Int64
    ) async throws -> Timed<[UInt8]> {
        var names = [UInt8](repeating: 0, count: 16 * count)
        var elapsed: UInt64 = 0
        let rc = deck.withCCards(first: first, count: count) { cards in
            system == .cLMDB
                ? cb_lmdb_create(opened, cards, batch, Int32(creators), createdAt, ttl, &names, &elapsed)
                : cb_sqlite_create(opened, cards, batch, Int32(creators), createdAt, ttl, &names, &elapsed)
        }
        try check(rc)
        return Timed(value: names, seconds: Double(elapsed) * 1e-9)
    }

    func fetch(_ names: [UInt8], threads: Int, at now: Int64) throws -> Timed<FetchTally> {
        var tally = cb_fetch_tally()
        var elapsed: UInt64 = 0
        let rc = system == .cLMDB
            ? cb_lmdb_fetch(opened, names, names.count / 16, Int32(threads), now, &tally, &elapsed)
            : cb_sqlite_fetch(opened, names, names.count / 16, Int32(threads), now, &tally, &elapsed)
        try check(rc)
        return Timed(
            value: FetchTally(live: Int(tally.live), expired: Int(tally.expired), missing: Int(tally.missing), bytes: Int(tally.bytes)),
            seconds: Double(elapsed) * 1e-9)
    }

    func sweep(at now: Int64, batch: Int) throws -> Timed<Int> {
        var expired: UInt64 = 0
        var elapsed: UInt64 = 0
        let rc = system == .cLMDB
            ? cb_lmdb_sweep(opened, now, batch, &expired, &elapsed)
            : cb_sqlite_sweep(opened, now, batch, &expired, &elapsed)
        try check(rc)
        return Timed(value: Int(expired), seconds: Double(elapsed) * 1e-9)
    }

    func replay(chunk: Int, scratch: String, progress: @escaping (Int) -> Void) throws -> Timed<ReplayOutcome> {
        let callback = ProgressCallback(progress)
        var report = cb_replay_report()
        var elapsed: UInt64 = 0
        let context = Unmanaged.passUnretained(callback).toOpaque()
        let rc = withExtendedLifetime(callback) {
            system == .cLMDB
                ? cb_lmdb_replay(opened, scratch, chunk, ProgressCallback.entry, context, &report, &elapsed)
                : cb_sqlite_replay(opened, scratch, chunk, ProgressCallback.entry, context, &report, &elapsed)
        }
        try check(rc)
        let consistent = report.mismatches == 0 && report.corrupt_events == 0 && report.sequence_gaps == 0
        return Timed(
            value: ReplayOutcome(events: Int(report.events), entriesCompared: Int(report.entries_compared), consistent: consistent),
            seconds: Double(elapsed) * 1e-9)
    }

    func commitCount() -> Int? {
        system == .cLMDB ? Int(cb_lmdb_commits(opened)) : nil
    }

    func close() {
        guard let handle else { return }
        if system == .cLMDB { cb_lmdb_close(handle) } else { cb_sqlite_close(handle) }
        self.handle = nil
    }
}

/// Carries a Swift progress closure through C's function pointer and
/// context; lives while the C call runs.
private final class ProgressCallback {
    let body: (Int) -> Void

    init(_ body: @escaping (Int) -> Void) { self.body = body }

    static let entry: cb_progress_fn = { context, events in
        Unmanaged<ProgressCallback>.fromOpaque(context!).takeUnretainedValue().body(Int(events))
    }
}
