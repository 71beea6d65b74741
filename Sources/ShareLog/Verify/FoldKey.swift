import Foundation

/// A key `verify` folds the log by: a record name or an event id, ordered
/// as LMDB orders the key bytes a derived database stores it under.
protocol FoldKey: Hashable {
    /// The key as its derived database stores it.
    var keyBytes: [UInt8] { get }

    /// The key a derived database stores as `keyBytes`; nil for bytes no
    /// key gives (a damaged key).
    init?(keyBytes: UnsafeRawBufferPointer)

    /// True when `lhs`'s key bytes sort before `rhs`'s in LMDB's order
    /// (memcmp), computed without building them.
    static func precedes(_ lhs: Self, _ rhs: Self) -> Bool
}

extension Identifier {
    /// The 16 bytes as two big-endian integers, which compare as the bytes do.
    var orderedHalves: (UInt64, UInt64) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            (UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
             UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }
}

extension RecordName {
    /// The name whose bytes are `halves`, two big-endian integers.
    init(orderedHalves halves: (UInt64, UInt64)) {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { bytes in
            bytes.storeBytes(of: halves.0.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: halves.1.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        self.init(uuid: UUID(uuid: raw))
    }
}

extension RecordName: FoldKey {
    /// The `shares` key, and the start of the `recordCreates` keys.
    var keyBytes: [UInt8] { bytes }

    init?(keyBytes: UnsafeRawBufferPointer) {
        guard keyBytes.count == 16 else { return nil }
        self.init(bytes: keyBytes)
    }

    static func precedes(_ lhs: RecordName, _ rhs: RecordName) -> Bool {
        lhs.orderedHalves < rhs.orderedHalves
    }
}

extension EventID: FoldKey {
    /// The `eventIndex` key: the origin, then the sequence big-endian.
    var keyBytes: [UInt8] { Key.event(self) }

    init?(keyBytes: UnsafeRawBufferPointer) {
        guard keyBytes.count == 24 else { return nil }
        self.init(
            origin: ReplicaID(bytes: keyBytes[..<16]),
            counter: UInt64(bigEndian: keyBytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
    }

    static func precedes(_ lhs: EventID, _ rhs: EventID) -> Bool {
        let (left, right) = (lhs.origin.orderedHalves, rhs.origin.orderedHalves)
        return left == right ? lhs.counter < rhs.counter : left < right
    }
}
