/// What Tests/Readers/read_store.py prints for a store of format 1 (`meta`
/// `schema` 1, docs/FORMAT.md "Format 1, and the upgrade"): the databases
/// format 1 shares with format 2 decode as in `ReaderOutput`; share states,
/// expiry entries and `recordCreates` have format 1's layout.
struct ReaderOutputFormat1: Decodable, Equatable {
    /// Entries per named database.
    var databases: [String: Int]
    var meta: ReaderOutput.Meta
    var events: [ReaderOutput.Event]
    var eventIndex: [ReaderOutput.IndexEntry]
    var shares: [Share]
    var expiry: [ExpiryEntry]
    var recordCreates: [RecordCreate]
    /// Log positions of `shareCreated` entries awaiting redaction.
    var pendingRedactions: [UInt64]

    /// One format-1 `shares` value; `creation`, `expiry` and `vCard` are
    /// nil when their flag bit is clear.
    struct Share: Decodable, Equatable {
        var recordName: String
        var version: Int
        var creation: Creation?
        var expiry: Expiry?
        var vCard: String?
    }

    /// A format-1 share state's creation part: its times and its event.
    struct Creation: Decodable, Equatable {
        var createdAt: Int64
        var expiresAt: Int64
        var origin: String
        var originSequence: UInt64
    }

    /// A format-1 share state's expiry part: when, why, and its event.
    struct Expiry: Decodable, Equatable {
        var at: Int64
        var reason: String
        var origin: String
        var originSequence: UInt64
    }

    /// One format-1 `expiry` key (its value is empty).
    struct ExpiryEntry: Decodable, Equatable {
        var expiresAt: UInt64
        var recordName: String
    }

    /// One `recordCreates` entry: a creation, and whether it held its card.
    struct RecordCreate: Decodable, Equatable {
        var recordName: String
        var sequence: UInt64
        var holdsVCard: Bool
    }
}
