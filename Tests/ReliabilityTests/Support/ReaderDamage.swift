/// One way a store can break a rule of docs/FORMAT.md, and the refusal the
/// Python reader must answer it with.
///
/// Each damage replaces one value of a `ReaderScenario` store with bytes
/// assembled by `FormatBytes` from the scenario's hand-written expectation,
/// then changed in one place. Where only one rule is to be broken, the
/// event's CRC-32 is recomputed over the changed bytes, so the refusal can
/// only come from the rule under test.
enum ReaderDamage: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `meta` `schema` 2: a store format from a newer version.
    case newerStoreFormat
    /// Event byte 0 = 2 on the live share's `shareCreated` (log 1).
    case unknownEventFormat
    /// Flag bit 1 on a `shareCreated` (log 1): format 1 defines only bit 0.
    case undefinedFlagOnShareCreated
    /// Flag bit 0 on a `shareExpired` (log 4): format 1 defines none.
    case undefinedFlagOnShareExpired
    /// A byte appended to the revoke (log 4): 36 + n bytes.
    case longerThan35PlusN
    /// The revoke's last byte dropped (log 4): 34 + n bytes.
    case shorterThan35PlusN
    /// The revoke cut to 34 bytes, shorter than any event.
    case shorterThanAnyEvent
    /// One bit of the revoke's time flipped, the CRC-32 left as it was.
    case checksumMismatch
    /// Reason 3 on the revoke (log 4): format 1 defines 1 and 2.
    case unknownExpiryReason
    /// Share-state byte 0 = 2 on the pure tombstone H.
    case unknownShareStateFormat
    /// B's expired state (no vCard) cut to 74 bytes.
    case shareStateShorterThanHeader
    /// B's expired state (no vCard) with one byte more than 75.
    case shareStateLongerWithoutVCard

    var description: String { rawValue }

    /// The database the damage writes to.
    var database: String {
        switch self {
        case .newerStoreFormat: "meta"
        case .unknownShareStateFormat, .shareStateShorterThanHeader, .shareStateLongerWithoutVCard: "shares"
        default: "log"
        }
    }

    /// The key overwritten, the damaged value, and the whole line the reader
    /// must print to standard error after `read_store.py: refused DIR: `.
    func damage(_ scenario: ReaderScenario) -> (key: [UInt8], value: [UInt8], refusal: String) {
        let expected = scenario.expected
        let liveCreate = FormatBytes.event(expected.events[0])
        let revoke = FormatBytes.event(expected.events[3])
        let b = scenario.names["B"]!
        let h = scenario.names["H"]!
        let stateOfB = FormatBytes.shareState(expected.shares.first { $0.recordName == b }!)
        let stateOfH = FormatBytes.shareState(expected.shares.first { $0.recordName == h }!)
        let log1 = FormatBytes.bigEndian(UInt64(1))
        let log4 = FormatBytes.bigEndian(UInt64(4))
        switch self {
        case .newerStoreFormat:
            return (Array("schema".utf8), [0, 0, 0, 2], "meta schema: store format 2 is newer than this reader knows (1)")
        case .unknownEventFormat:
            return (log1, Self.resealed(liveCreate) { $0[0] = 2 }, "log 1: event format version 2 is not one this reader knows (1)")
        case .undefinedFlagOnShareCreated:
            return (log1, Self.resealed(liveCreate) { $0[2] = 0x02 }, "log 1: shareCreated sets flag bits 0x02 that format 1 does not define")
        case .undefinedFlagOnShareExpired:
            return (log4, Self.resealed(revoke) { $0[2] = 0x01 }, "log 4: shareExpired sets flag bits 0x01 that format 1 does not define")
        case .longerThan35PlusN:
            return (log4, revoke + [0], "log 4: event is 61 bytes, not 35 + n = 60")
        case .shorterThan35PlusN:
            return (log4, Array(revoke.dropLast()), "log 4: event is 59 bytes, not 35 + n = 60")
        case .shorterThanAnyEvent:
            return (log4, Array(revoke.prefix(34)), "log 4: event of 34 bytes is shorter than 35 bytes")
        case .checksumMismatch:
            var flipped = revoke
            flipped[31 + 16 + 7] ^= 0x01
            let stored = FormatBytes.hexText(Array(revoke.suffix(4)))
            let computed = FormatBytes.hexText(FormatBytes.bigEndian(FormatBytes.crc32(Array(flipped.dropLast(4)))))
            return (log4, flipped, "log 4: CRC-32 does not match the bytes (stored 0x\(stored), computed 0x\(computed))")
        case .unknownExpiryReason:
            return (log4, Self.resealed(revoke) { $0[31 + 24] = 3 }, "log 4: expiry reason 3 is neither 1 (ttl) nor 2 (revoked)")
        case .unknownShareStateFormat:
            var state = stateOfH
            state[0] = 2
            return (FormatBytes.identifier(h), state, "shares \(h): share-state format version 2 is not one this reader knows (1)")
        case .shareStateShorterThanHeader:
            return (FormatBytes.identifier(b), Array(stateOfB.prefix(74)),
                    "shares \(b): share state is 74 bytes, shorter than its 75-byte header")
        case .shareStateLongerWithoutVCard:
            return (FormatBytes.identifier(b), stateOfB + [0], "shares \(b): share state without a vCard is 76 bytes, not 75")
        }
    }

    /// `event` changed by `change`, with a CRC-32 over the changed bytes.
    private static func resealed(_ event: [UInt8], _ change: (inout [UInt8]) -> Void) -> [UInt8] {
        var body = Array(event.dropLast(4))
        change(&body)
        return FormatBytes.sealed(body)
    }
}
