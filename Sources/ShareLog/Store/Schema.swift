import LMDB

/// The named databases of a ShareLog store and their key layouts. All
/// integers in keys are big-endian so that byte order is numeric order.
/// docs/FORMAT.md describes the same layout for readers in other languages.
///
/// | database | key | value |
/// |---|---|---|
/// | meta | ASCII name | see `MetaKey` |
/// | log | log position (8) | `EventCodec` bytes |
/// | eventIndex | origin replica (16) + origin counter (8) | log position (8) |
/// | shares | record name (16) | `ShareState` bytes |
/// | expiry | expiresAt ms (8) + record name (16) | empty; live shares only |
/// | recordCreates | record name (16) + log position (8) | 1 byte: 1 while the entry holds its vCard, 0 once redacted |
/// | pendingRedactions | log position (8) | empty; log entries still holding an expired share's vCard |
struct Schema: Sendable {
    /// The store format this build writes and reads.
    static let version: UInt32 = 1

    static let names = ["meta", "log", "eventIndex", "shares", "expiry", "recordCreates", "pendingRedactions"]

    let meta: Database
    let log: Database
    let eventIndex: Database
    let shares: Database
    let expiry: Database
    let recordCreates: Database
    let pendingRedactions: Database

    init(_ env: Environment) throws {
        meta = try env.database("meta")
        log = try env.database("log")
        eventIndex = try env.database("eventIndex")
        shares = try env.database("shares")
        expiry = try env.database("expiry")
        recordCreates = try env.database("recordCreates")
        pendingRedactions = try env.database("pendingRedactions")
    }

    /// The databases derived from the log, which `verify` rebuilds.
    var derived: [Database] { [eventIndex, shares, expiry, recordCreates, pendingRedactions] }
}
