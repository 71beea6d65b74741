import LMDB

/// The named databases of a ShareLog store and their key layouts. All
/// integers in keys are big-endian so that byte order is numeric order.
/// docs/FORMAT.md describes the same layout for readers in other languages.
///
/// | database | key | value |
/// |---|---|---|
/// | meta | ASCII name | see `MetaKey` |
/// | log | local sequence (8) | `EventCodec` bytes |
/// | eventIndex | origin replica (16) + origin sequence (8) | local sequence (8) |
/// | shares | record name (16) | `ShareState` bytes |
/// | expiry | expiresAt ms (8) + record name (16) | empty; live shares only |
/// | recordCreates | record name (16) + local sequence (8) | 1 byte: 1 while the entry holds its vCard, 0 once redacted |
/// | pendingRedactions | local sequence (8) | empty; log entries still holding an expired share's vCard |
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

/// Keys of the `meta` database.
enum MetaKey {
    /// UInt32: the store format version.
    static let schema = Array("schema".utf8)
    /// 16 bytes: this replica's id.
    static let replica = Array("replica".utf8)
    /// 16 bytes: this store's epoch.
    static let epoch = Array("epoch".utf8)
    /// UInt64: the origin sequence of the last event this replica made.
    static let originSequence = Array("origin-sequence".utf8)
    /// UInt64: shares whose state is live (due ones included until swept).
    static let liveCount = Array("live-count".utf8)
    /// UInt64: shares whose state is expired (tombstones).
    static let expiredCount = Array("expired-count".utf8)
}

/// Key encodings.
enum Key {
    static func sequence(_ sequence: UInt64) -> [UInt8] { bigEndian(sequence) }

    static func event(_ id: EventID) -> [UInt8] { id.origin.bytes + bigEndian(id.counter) }

    static func expiry(_ expiresAt: Timestamp, _ name: RecordName) -> [UInt8] {
        bigEndian(UInt64(clamping: max(expiresAt.milliseconds, 0))) + name.bytes
    }

    /// Every `expiry` key of a share due at `time` (`expiresAt <= time`):
    /// keys sort by expiresAt first, so they all lie below this bound.
    static func due(at time: Timestamp) -> KeyRange {
        .upTo(bigEndian(UInt64(clamping: time.milliseconds) &+ 1))
    }

    /// Reads an `expiry` key: expiresAt (8) and a record name (16).
    ///
    /// - Returns: nil for a damaged key: another length, or a time past
    ///   `Int64.max` milliseconds, which `expiry(_:_:)` never writes.
    static func expiryEntry(_ key: UnsafeRawBufferPointer) -> (expiresAt: Timestamp, name: RecordName)? {
        guard key.count == 24,
              let milliseconds = integer(UnsafeRawBufferPointer(rebasing: key[..<8]), as: UInt64.self).flatMap(Int64.init(exactly:))
        else { return nil }
        return (Timestamp(milliseconds: milliseconds), RecordName(bytes: key[8...]))
    }

    static func recordCreate(_ name: RecordName, _ sequence: UInt64) -> [UInt8] { name.bytes + bigEndian(sequence) }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// Lowercase hexadecimal, two digits a byte: how reports and errors show a key.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads a big-endian integer that fills `bytes`, or nil for another size.
    static func integer<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, as: T.Type = T.self) -> T? {
        guard bytes.count == MemoryLayout<T>.size else { return nil }
        return T(bigEndian: bytes.loadUnaligned(as: T.self))
    }
}
