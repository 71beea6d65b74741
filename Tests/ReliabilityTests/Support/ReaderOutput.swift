/// What Tests/Readers/read_store.py prints for a store: every database,
/// decoded from docs/FORMAT.md alone, each list in LMDB key order.
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
    var recordCreates: [RecordCreate]
    /// Local sequences of `shareCreated` entries awaiting redaction.
    var pendingRedactions: [UInt64]

    /// The `meta` database; absent counters read as 0.
    struct Meta: Decodable, Equatable {
        var schema: Int
        var replica: String
        var epoch: String
        var originSequence: UInt64
        var liveCount: UInt64
        var expiredCount: UInt64

        enum CodingKeys: String, CodingKey {
            case schema, replica, epoch
            case originSequence = "origin-sequence"
            case liveCount = "live-count"
            case expiredCount = "expired-count"
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

    /// One `eventIndex` entry: event id → local sequence.
    struct IndexEntry: Decodable, Equatable {
        var origin: String
        var originSequence: UInt64
        var sequence: UInt64
    }

    /// One `shares` value; `creation`, `expiry` and `vCard` are nil when
    /// their flag bit is clear.
    struct Share: Decodable, Equatable {
        var recordName: String
        var version: Int
        var creation: Creation?
        var expiry: Expiry?
        var vCard: String?
    }

    /// A share state's creation part: its times and its creating event.
    struct Creation: Decodable, Equatable {
        var createdAt: Int64
        var expiresAt: Int64
        var origin: String
        var originSequence: UInt64
    }

    /// A share state's expiry part: when, why, and its expiring event.
    struct Expiry: Decodable, Equatable {
        var at: Int64
        var reason: String
        var origin: String
        var originSequence: UInt64
    }

    /// One `expiry` key.
    struct ExpiryEntry: Decodable, Equatable {
        var expiresAt: UInt64
        var recordName: String
    }

    /// One `recordCreates` entry.
    struct RecordCreate: Decodable, Equatable {
        var recordName: String
        var sequence: UInt64
        var holdsVCard: Bool
    }
}
