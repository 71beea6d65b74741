/// What Tests/Readers/read_store.py prints for a store of format 3: every
/// database, decoded from docs/FORMAT.md alone, each list in LMDB key order.
/// (A format-1 store prints `ReaderOutputFormat1`; format 3's `tokens` and
/// `idempotency` are read by `IndependentReaderTokenTests`.)
///
/// Tests decode the reader's JSON into this, and write the state a scenario
/// must leave by hand in the same shape (`ReaderScenario`), so the two
/// compare field by field. Identifiers are lowercase UUID text, times are
/// milliseconds since 1970, vCards are their UTF-8 text.
struct ReaderOutput: Decodable, Equatable {
    /// Entries per named database.
    var databases: [String: Int]
    var meta: Meta
    var events: [Event]
    var eventIndex: [IndexEntry]
    var shares: [Share]
    var expiry: [ExpiryEntry]
    /// Log positions of `shareCreated` entries awaiting redaction.
    var pendingRedactions: [UInt64]
    var cursors: [Cursor]

    /// The `meta` database; absent counters read as 0.
    struct Meta: Decodable, Equatable {
        var schema: Int
        var replica: String
        var epoch: String
        var originSequence: UInt64
        var liveCount: UInt64
        var expiredCount: UInt64
        /// The data file's inode the store recorded; none in format 1.
        var dataFile: String?
        /// The highest log position a trim removed; none before any trim.
        var trimmedThrough: UInt64?

        enum CodingKeys: String, CodingKey {
            case schema, replica, epoch
            case originSequence = "origin-sequence"
            case liveCount = "live-count"
            case expiredCount = "expired-count"
            case dataFile = "data-file"
            case trimmedThrough = "trimmed-through"
        }
    }

    /// One `log` entry. Kind-specific fields are nil for the other kinds.
    struct Event: Decodable, Equatable {
        var sequence: UInt64
        var version: Int
        var kind: Int
        var kindName: String
        var flags: Int
        var origin: String
        var originSequence: UInt64
        var recordName: String?
        /// `shareCreated` only.
        var createdAt: Int64?
        var expiresAt: Int64?
        var redacted: Bool?
        var vCard: String?
        /// `shareExpired` only.
        var at: Int64?
        var reason: String?
        /// An unknown kind's payload, in lowercase hex.
        var payload: String?
    }

    /// One `eventIndex` entry: event id → log position (`sequence`).
    struct IndexEntry: Decodable, Equatable {
        var origin: String
        var originSequence: UInt64
        var sequence: UInt64
    }

    /// One `shares` value (format 2); each part is nil when its flag bit is
    /// clear. The card is not here: it is in the log at `creation.position`.
    struct Share: Decodable, Equatable {
        var recordName: String
        var version: Int
        var creation: Creation?
        var revocation: End?
        var ttlEnd: End?
        var arrivedRedacted: Bool
    }

    /// A share state's creation part: its times, its creating event, and
    /// that event's log position.
    struct Creation: Decodable, Equatable {
        var createdAt: Int64
        var expiresAt: Int64
        var origin: String
        var originSequence: UInt64
        var position: UInt64
    }

    /// A share state's revocation or TTL-end part: when, and its event.
    struct End: Decodable, Equatable {
        var at: Int64
        var origin: String
        var originSequence: UInt64
    }

    /// One `expiry` entry: the key (expiresAt clamped at 0, record name)
    /// and the value (the winning creation's log position, its expiresAt).
    struct ExpiryEntry: Decodable, Equatable {
        var clampedExpiresAt: UInt64
        var recordName: String
        var position: UInt64
        var expiresAt: Int64
    }

    /// One `cursors` entry: how far this replica has read a peer's log.
    struct Cursor: Decodable, Equatable {
        var peer: String
        var epoch: String
        var position: UInt64
        var lastSeen: Int64
    }
}
