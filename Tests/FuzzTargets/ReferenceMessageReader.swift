/// A message checker written from docs/SYNC.md ("Messages") alone: the
/// `frame` fuzz target's oracle for `Message(_:)`. It walks each message's
/// table field by field, front to back, and says which rule the payload
/// breaks first, or nil when it is a well-formed message.
enum ReferenceMessageReader {
    /// The rules of "Every message decoder refuses", with the field named
    /// as the tables name it.
    enum Refusal: Error, Hashable {
        case truncated(field: String)
        case trailingBytes(count: Int)
        case badMagic
        case invalidValue(field: String, value: UInt64)
        case countOutOfRange(field: String, count: Int)
        case invalidVersionRange
    }

    /// The first rule the payload of a frame of type `type` (1…17) breaks.
    static func refusal(type: UInt8, payload: [UInt8]) -> Refusal? {
        var fields = Fields(bytes: payload)
        do throws(Refusal) {
            try read(type: type, &fields)
            guard fields.offset == payload.count else { throw Refusal.trailingBytes(count: payload.count - fields.offset) }
            return nil
        } catch {
            return error
        }
    }

    private struct Fields {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ count: Int, _ field: String) throws(Refusal) -> ArraySlice<UInt8> {
            guard bytes.count - offset >= count else { throw .truncated(field: field) }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func number(_ size: Int, _ field: String) throws(Refusal) -> UInt64 {
            try take(size, field).reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// `count` events, each length u32 then its bytes.
        mutating func events(_ count: UInt64, _ prefix: String) throws(Refusal) {
            var index = 0
            while UInt64(index) < count {
                let length = try number(4, "\(prefix)[\(index)].length")
                _ = try take(Int(length), "\(prefix)[\(index)]")
                index += 1
            }
        }

        /// A name count of `fetch` and `records`: 1…64.
        mutating func nameCount() throws(Refusal) -> Int {
            let count = Int(try number(2, "count"))
            guard (1...64).contains(count) else { throw .countOutOfRange(field: "count", count: count) }
            return count
        }

        /// The end of an `error`'s text: it runs to the end of the payload.
        mutating func rest() { offset = bytes.count }
    }

    /// A u8 proof length, 0 or 32, and that many bytes.
    private static func optionalProof(_ fields: inout Fields) throws(Refusal) {
        let proofLength = try fields.number(1, "proofLength")
        guard proofLength == 0 || proofLength == 32 else { throw .invalidValue(field: "proofLength", value: proofLength) }
        _ = try fields.take(Int(proofLength), "proof")
    }

    private static func read(type: UInt8, _ fields: inout Fields) throws(Refusal) {
        switch type {
        case 1:  // hello
            guard try fields.take(4, "magic").elementsEqual([0x53, 0x4c, 0x53, 0x59]) else { throw .badMagic }
            let minimum = try fields.number(2, "minVersion")
            let maximum = try fields.number(2, "maxVersion")
            guard minimum <= maximum else { throw .invalidVersionRange }
            let role = try fields.number(1, "role")
            guard role == 1 || role == 2 else { throw .invalidValue(field: "role", value: role) }
            let directions = try fields.number(1, "directions")
            guard directions & 0b1111_1000 == 0 else { throw .invalidValue(field: "directions", value: directions) }
            _ = try fields.take(16, "replica")
            _ = try fields.take(16, "epoch")
            _ = try fields.take(32, "nonce")
        case 2:  // welcome
            _ = try fields.number(2, "version")
            _ = try fields.take(16, "replica")
            _ = try fields.take(16, "epoch")
            _ = try fields.take(32, "nonce")
            try optionalProof(&fields)
        case 3:  // authenticate
            _ = try fields.take(32, "proof")
        case 17:  // accepted
            _ = try fields.number(8, "heldOfYou")
            try optionalProof(&fields)
        case 4:  // pull
            _ = try fields.take(16, "knownEpoch")
            _ = try fields.number(8, "after")
            let follow = try fields.number(1, "follow")
            guard follow <= 1 else { throw .invalidValue(field: "follow", value: follow) }
            _ = try fields.number(4, "maxBatchBytes")
            _ = try fields.number(8, "heldOfYou")
        case 5:  // batch
            _ = try fields.number(8, "through")
            try fields.events(try fields.number(4, "count"), "events")
        case 6:  // ack
            _ = try fields.number(8, "through")
        case 7:  // caughtUp
            _ = try fields.number(8, "position")
        case 8:  // snapshotRequired
            let reason = try fields.number(1, "reason")
            guard (1...3).contains(reason) else { throw .invalidValue(field: "reason", value: reason) }
            _ = try fields.take(16, "epoch")
            _ = try fields.number(8, "horizon")
        case 10:  // snapshotBatch
            try fields.events(try fields.number(4, "count"), "events")
        case 11:  // snapshotEnd
            _ = try fields.number(8, "resumeAfter")
            _ = try fields.take(16, "epoch")
        case 12:  // fetch
            for index in 0..<(try fields.nameCount()) { _ = try fields.take(16, "names[\(index)]") }
        case 13:  // records
            for index in 0..<(try fields.nameCount()) {
                _ = try fields.take(16, "records[\(index)].name")
                try fields.events(try fields.number(1, "records[\(index)].eventCount"), "records[\(index)].events")
            }
        case 15:  // error
            let code = try fields.number(2, "code")
            // 1 to 14 but 12, retired (`identityChanged`) and refused.
            guard (1...14).contains(code), code != 12 else { throw .invalidValue(field: "code", value: code) }
            fields.rest()
        default:  // 9 snapshotRequest, 14 heartbeat, 16 bye: empty
            break
        }
    }
}
