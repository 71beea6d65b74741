import FormatReference
import Foundation
@testable import ShareLog

/// Reads a store's raw LMDB contents into a `StoreImage` by docs/FORMAT.md
/// alone: its own big-endian integers, event and share-state layouts, and
/// zlib for the checksum. Nothing of the engine but the database handles.
///
/// Strict: it refuses any byte the format does not account for (a wrong
/// length, a flag bit format 3 does not define, an unknown meta key), so an image it returns stands for the exact bytes.
enum StoreDecoder {
    /// A byte the format does not allow, with where it was.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    static func image(of test: TestStore) throws -> StoreImage {
        var image = StoreImage()
        for (key, value) in try test.contents(of: \.meta) {
            let name = String(decoding: key, as: UTF8.self)
            switch name {
            case "schema": try require(value == [0, 0, 0, 3], "meta schema \(value)")
            case "replica": try require(value == raw(test.store.replicaID.uuid), "meta replica \(value)")
            case "epoch": try require(value.count == 16, "meta epoch of \(value.count) bytes")
            case "data-file": try require(value.count == 28, "meta data-file of \(value.count) bytes")
            case "trimmed-through": image.trimmedThrough = try integer(value[...], "meta \(name)")
            case "last-shown": try require(value.count == 16, "meta last-shown of \(value.count) bytes")
            case "handed-off": try require(value.count == 24, "meta handed-off of \(value.count) bytes")
            case "origin-sequence": image.originSequence = try integer(value[...], "meta \(name)")
            case "live-count": image.liveCount = try integer(value[...], "meta \(name)")
            case "expired-count": image.expiredCount = try integer(value[...], "meta \(name)")
            default: throw Refusal(description: "meta key \(name) is not in FORMAT.md")
            }
        }
        for (key, value) in try test.contents(of: \.log) {
            let sequence: UInt64 = try integer(key[...], "log key")
            image.log[sequence] = try event(value, at: sequence)
        }
        try require(image.log.keys.sorted() == (0..<image.log.count).map { UInt64($0 + 1) }, "log sequences \(image.log.keys.sorted()) have a gap")
        for (key, value) in try test.contents(of: \.eventIndex) {
            try require(key.count == 24, "eventIndex key of \(key.count) bytes")
            let id = EventID(origin: ReplicaID(uuid: uuid(key[0..<16])), counter: try integer(key[16...], "eventIndex key"))
            image.eventIndex[id] = try integer(value[...], "eventIndex value of \(id)")
        }
        for (key, value) in try test.contents(of: \.shares) {
            try require(key.count == 16, "shares key of \(key.count) bytes")
            image.shares[RecordName(uuid: uuid(key[...]))] = try share(value)
        }
        for (key, value) in try test.contents(of: \.expiry) {
            try require(key.count == 24 && value.count == 16, "expiry entry \(key): \(value)")
            let pending = StoreImage.Pending(position: try integer(value[0..<8], "expiry value"), expiresAt: try integer(value[8...], "expiry value"))
            try require(UInt64(max(pending.expiresAt, 0)) == (try integer(key[0..<8], "expiry key") as UInt64), "expiry key \(key) indexes another time than its value \(value)")
            image.expiry[.init(expiresAt: try integer(key[0..<8], "expiry key"), name: RecordName(uuid: uuid(key[8...])))] = pending
        }
        // No script makes tokens or upload keys: the primary databases of
        // format 3's write API stay empty.
        try require(try test.contents(of: \.tokens).isEmpty, "tokens holds entries")
        try require(try test.contents(of: \.idempotency).isEmpty, "idempotency holds entries")
        for (key, value) in try test.contents(of: \.cursors) {
            try require(key.count == 16 && value.count == 32, "cursors entry \(key): \(value)")
            image.cursors[uuid(key[...])] = StoreImage.Cursor(
                epoch: uuid(value[0..<16]), position: try integer(value[16..<24], "cursor position") as UInt64,
                lastSeen: try integer(value[24...], "cursor time") as Int64)
        }
        for (key, value) in try test.contents(of: \.pendingRedactions) {
            try require(value.isEmpty, "pendingRedactions value \(value)")
            image.pendingRedactions.insert(try integer(key[...], "pendingRedactions key"))
        }
        return image
    }

    /// A `log` value, read by `ReferenceEventReader` (FORMAT.md alone).
    private static func event(_ bytes: [UInt8], at position: UInt64) throws -> Event {
        switch ReferenceEventReader.read(bytes) {
        case .success(let event): return event
        case .failure(let refusal): throw Refusal(description: "log entry \(position): \(refusal)")
        }
    }

    /// A `shares` value (format 2): version 2, flags (bit 0 creation, bit 1
    /// revocation, bit 2 TTL end, never with bit 0; bit 3 arrived redacted,
    /// only with bit 0 and without bit 1), then the present parts: creation
    /// (48), revocation (32), TTL end (32); nothing else.
    private static func share(_ bytes: [UInt8]) throws -> StoreImage.Share {
        try require(bytes.count >= 2 && bytes[0] == 2 && bytes[1] & ~15 == 0 && bytes[1] & 7 != 0 && bytes[1] & 5 != 5
                        && (bytes[1] & 8 == 0 || bytes[1] & 3 == 1),
                    "share state \(bytes.prefix(2)) of \(bytes.count) bytes")
        let flags = bytes[1]
        let expected = 2 + (flags & 1 != 0 ? 48 : 0) + (flags & 2 != 0 ? 32 : 0) + (flags & 4 != 0 ? 32 : 0)
        try require(bytes.count == expected, "share state with flags \(flags) of \(bytes.count) bytes, not \(expected)")
        var share = StoreImage.Share()
        var offset = 2
        if flags & 1 != 0 {
            share.creation = .init(
                createdAt: try integer(bytes[offset..<offset + 8], "createdAt"), expiresAt: try integer(bytes[offset + 8..<offset + 16], "expiresAt"),
                event: EventID(origin: ReplicaID(uuid: uuid(bytes[offset + 16..<offset + 32])), counter: try integer(bytes[offset + 32..<offset + 40], "creator")),
                position: try integer(bytes[offset + 40..<offset + 48], "creation position"))
            offset += 48
        }
        func end() throws -> StoreImage.End {
            defer { offset += 32 }
            return .init(
                at: try integer(bytes[offset..<offset + 8], "end at"),
                event: EventID(origin: ReplicaID(uuid: uuid(bytes[offset + 8..<offset + 24])), counter: try integer(bytes[offset + 24..<offset + 32], "ender")))
        }
        if flags & 2 != 0 { share.revocation = try end() }
        if flags & 4 != 0 { share.ttlEnd = try end() }
        share.arrivedRedacted = flags & 8 != 0
        return share
    }

    /// A big-endian integer that fills `bytes` exactly.
    private static func integer<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>, _ place: String) throws -> T {
        try require(bytes.count == T.bitWidth / 8, "\(place): \(bytes.count) bytes for a \(T.bitWidth)-bit integer")
        return bytes.reduce(T.zero) { ($0 << 8) | T(truncatingIfNeeded: $1) }
    }

    private static func uuid(_ bytes: ArraySlice<UInt8>) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        return UUID(uuid: raw)
    }

    private static func raw(_ uuid: UUID) -> [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    private static func require(_ condition: Bool, _ refusal: @autoclosure () -> String) throws {
        if !condition { throw Refusal(description: refusal()) }
    }
}
