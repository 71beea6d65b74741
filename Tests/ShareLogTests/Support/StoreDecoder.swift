import FormatReference
import Foundation
@testable import ShareLog

/// Reads a store's raw LMDB contents into a `StoreImage` by docs/FORMAT.md
/// alone: its own big-endian integers, event and share-state layouts, and
/// zlib for the checksum. Nothing of the engine but the database handles.
///
/// Strict: it refuses any byte the format does not account for (a wrong
/// length, a flag bit format 1 does not define, a non-zero absent part, an
/// unknown meta key), so an image it returns stands for the exact bytes.
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
            case "schema": try require(value == [0, 0, 0, 1], "meta schema \(value)")
            case "replica": try require(value == raw(test.store.replicaID.uuid), "meta replica \(value)")
            case "epoch": try require(value.count == 16, "meta epoch of \(value.count) bytes")
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
            try require(key.count == 24 && value.isEmpty, "expiry entry \(key): \(value)")
            image.expiry.insert(.init(expiresAt: try integer(key[0..<8], "expiry key"), name: RecordName(uuid: uuid(key[8...]))))
        }
        for (key, value) in try test.contents(of: \.recordCreates) {
            try require(key.count == 24 && (value == [0] || value == [1]), "recordCreates entry \(key): \(value)")
            image.recordCreates[.init(name: RecordName(uuid: uuid(key[0..<16])), sequence: try integer(key[16...], "recordCreates key"))] = value[0]
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

    /// A `shares` value: version, flags, creation (40), expiry (33), card.
    private static func share(_ bytes: [UInt8]) throws -> StoreImage.Share {
        try require(bytes.count >= 75 && bytes[0] == 1 && bytes[1] & ~7 == 0, "share state \(bytes.prefix(2)) of \(bytes.count) bytes")
        let flags = bytes[1]
        var share = StoreImage.Share()
        if flags & 1 != 0 {
            share.creation = .init(
                createdAt: try integer(bytes[2..<10], "createdAt"), expiresAt: try integer(bytes[10..<18], "expiresAt"),
                event: EventID(origin: ReplicaID(uuid: uuid(bytes[18..<34])), counter: try integer(bytes[34..<42], "creator")))
        } else {
            try require(bytes[2..<42].allSatisfy { $0 == 0 }, "share state without creation has creation bytes")
        }
        if flags & 2 != 0 {
            share.expiry = .init(
                at: try integer(bytes[42..<50], "expired at"), reason: try reason(bytes[50], "share state").rawValue,
                event: EventID(origin: ReplicaID(uuid: uuid(bytes[51..<67])), counter: try integer(bytes[67..<75], "expirer")))
        } else {
            try require(bytes[42..<75].allSatisfy { $0 == 0 }, "share state without expiry has expiry bytes")
        }
        try require(share.creation != nil || share.expiry != nil, "share state with neither creation nor expiry")
        if flags & 4 != 0 {
            share.vCard = Array(bytes[75...])
        } else {
            try require(bytes.count == 75, "share state without card flag has \(bytes.count - 75) trailing bytes")
        }
        return share
    }

    private static func reason(_ byte: UInt8, _ place: String) throws -> ExpiryReason {
        switch byte {
        case 1: return .ttl
        case 2: return .revoked
        default: throw Refusal(description: "\(place): expiry reason \(byte)")
        }
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
