import Foundation

/// A key or small value of up to 32 bytes, built on the stack: the hot
/// paths (each sweep and create appends several entries per share) hand
/// LMDB these instead of a heap-allocated `[UInt8]` apiece.
struct PackedKey: ContiguousBytes {
    private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private(set) var count = 0

    /// A log position, big-endian.
    init(position: UInt64) { append(position) }

    /// An event id: the origin's 16 bytes, then the counter big-endian.
    init(event id: EventID) {
        append(id.origin.uuid)
        append(id.counter)
    }

    /// A record name's 16 bytes: its `shares` key.
    init(name: RecordName) { append(name.uuid) }

    /// An `expiry` key (`Key.expiry`): `expiresAt` in milliseconds,
    /// big-endian and clamped at 0, then the record name.
    init(expiresAt: Timestamp, name: RecordName) {
        append(UInt64(clamping: max(expiresAt.milliseconds, 0)))
        append(name.uuid)
    }

    /// The `expiry` value of a pending share (`Key.pendingValue`): its
    /// winning creation's log position, then its exact `expiresAt`,
    /// both big-endian.
    init(pendingValue creation: ShareState.Creation) {
        append(creation.position)
        append(UInt64(bitPattern: creation.expiresAt.milliseconds))
    }

    /// The bytes, as an array.
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    private mutating func append(_ value: UInt64) {
        Swift.withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt64.self) }
        count += 8
    }

    private mutating func append(_ uuid: UUID) {
        Swift.withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: uuid.uuid, toByteOffset: count, as: uuid_t.self) }
        count += 16
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage) { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}
