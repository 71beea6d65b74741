import LMDB

/// The named databases of a ShareLog store and their key layouts (store
/// format 3). All integers in keys are big-endian so that byte order is
/// numeric order. docs/FORMAT.md describes the same layout for readers in
/// other languages.
///
/// | database | key | value |
/// |---|---|---|
/// | meta | ASCII name | see `MetaKey` |
/// | log | log position (8) | `EventCodec` bytes |
/// | eventIndex | origin replica (16) + origin counter (8) | log position (8) |
/// | shares | record name (16) | `ShareState` bytes |
/// | expiry | expiresAt ms (8) + record name (16) | creation's log position (8) + expiresAt (8); pending shares only |
/// | pendingRedactions | log position (8) | empty; log entries holding a card no answer needs |
/// | cursors | peer replica (16) | peer epoch (16) + position in the peer's log (8); written by sync |
/// | tokens | token id (8) | `StoredToken` bytes; primary |
/// | idempotency | token id (8) + SHA-256 of an Idempotency-Key (32) | `IdempotencyEntry` bytes; primary |
///
/// A class, so that the `EventLog` and `ShareProjection` every operation
/// makes share one reference: as a struct, each copy retained the nine
/// databases' names, a tenth of a fetch's own time (BENCHMARKS.md, "The
/// third round").
final class Schema: Sendable {
    /// The store format this build writes and reads.
    static let version: UInt32 = 3

    static let names = ["meta", "log", "eventIndex", "shares", "expiry", "pendingRedactions", "cursors", "tokens", "idempotency"]

    let meta: Database
    let log: Database
    let eventIndex: Database
    let shares: Database
    let expiry: Database
    let pendingRedactions: Database
    let cursors: Database
    let tokens: Database
    let idempotency: Database

    init(_ env: Environment) throws {
        meta = try env.database("meta")
        log = try env.database("log")
        eventIndex = try env.database("eventIndex")
        shares = try env.database("shares")
        expiry = try env.database("expiry")
        pendingRedactions = try env.database("pendingRedactions")
        cursors = try env.database("cursors")
        tokens = try env.database("tokens")
        idempotency = try env.database("idempotency")
    }

    /// The databases derived from the log, which `verify` rebuilds.
    var derived: [Database] { [eventIndex, shares, expiry, pendingRedactions] }
}
