/// A share found in the `expiry` index: created, with no end logged yet.
struct PendingShare {
    let name: RecordName
    /// The log position of its winning creation, whose entry holds the card.
    let creationPosition: UInt64
    /// Its exact `expiresAt` (the key holds 0 for times before 1970).
    let expiresAt: Timestamp

    /// Its `expiry` key: expiresAt (clamped to 0 before 1970) and name.
    var key: PackedKey { PackedKey(expiresAt: expiresAt, name: name) }
}
