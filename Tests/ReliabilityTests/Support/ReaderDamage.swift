/// One way a store can break a rule of docs/FORMAT.md ("What a reader must
/// refuse"), and the refusal the Python reader must answer it with.
///
/// Each damage writes one key and value into a `ReaderScenario` store:
/// bytes assembled by `FormatBytes` from the scenario's hand-written
/// expectation, then changed in one place. Where only one rule is to be
/// broken, the event's CRC-32 is recomputed over the changed bytes and the
/// rest stays valid, so the refusal can only come from the rule under test.
enum ReaderDamage: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `meta` `schema` 4: a store format from a newer version.
    case newerStoreFormat
    /// `meta` `schema` of 5 bytes.
    case schemaNotFourBytes
    /// Event byte 0 = 2 on the live share's `shareCreated` (log 1).
    case unknownEventFormat
    /// Flag bit 1 on a `shareCreated` (log 1): event format 1 defines only bit 0.
    case undefinedFlagOnShareCreated
    /// Flag bit 0 on a `shareExpired` (log 4): event format 1 defines none.
    case undefinedFlagOnShareExpired
    /// A byte appended to the revoke (log 4): 36 + n bytes.
    case longerThan35PlusN
    /// The revoke's last byte dropped (log 4): 34 + n bytes.
    case shorterThan35PlusN
    /// The revoke cut to 34 bytes, shorter than any event.
    case shorterThanAnyEvent
    /// One bit of the revoke's time flipped, the CRC-32 left as it was.
    case checksumMismatch
    /// A's `shareCreated` (log 1) with a 31-byte payload.
    case shareCreatedPayloadShorterThan32
    /// A's `shareCreated` (log 1) marked redacted, its card still there.
    case redactedShareCreatedWithCard
    /// The revoke (log 4) with a 26-byte payload.
    case shareExpiredPayloadNot25
    /// Reason 3 on the revoke (log 4): the format defines 1 and 2.
    case unknownExpiryReason
    /// Share-state byte 0 = 1, format 1's, on the pure tombstone H.
    case unknownShareStateFormat
    /// Flag bit 4 on A's share state.
    case undefinedShareStateFlag
    /// Flag bit 3 (arrived redacted) on C's share state, which has a revocation.
    case arrivedRedactedBesideRevocation
    /// B's share state with no flag set, its 50 bytes kept.
    case noShareStateFlag
    /// B's share state with its creation and a TTL end (bits 0 and 2),
    /// 82 bytes as those flags say.
    case ttlEndBesideCreation
    /// B's share state (creation only, 50 bytes) cut to 49.
    case shareStateShorterThanItsFlagsSay
    /// C's share state (creation and revocation, 82 bytes) with one byte more.
    case shareStateLongerThanItsFlagsSay
    /// A's `expiry` value cut to 15 bytes.
    case expiryValueNot16
    /// A `cursors` entry whose value is 31 bytes.
    case cursorsValueNot32
    /// A valid event under log key 0.
    case logKeyZero
    /// A valid event under a 7-byte log key.
    case logKeyNot8Bytes
    /// A valid event at log position 22, after 20: a gap.
    case logGap
    /// An `eventIndex` key of 23 bytes.
    case eventIndexKeyLength
    /// A `shares` key of 15 bytes.
    case sharesKeyLength
    /// An `expiry` key of 23 bytes.
    case expiryKeyLength
    /// A `pendingRedactions` key of 7 bytes.
    case pendingRedactionsKeyLength
    /// A `cursors` key of 15 bytes.
    case cursorsKeyLength

    var description: String { rawValue }

    /// The database the damage writes to.
    var database: String {
        switch self {
        case .newerStoreFormat, .schemaNotFourBytes: "meta"
        case .unknownShareStateFormat, .undefinedShareStateFlag, .arrivedRedactedBesideRevocation, .noShareStateFlag, .ttlEndBesideCreation,
             .shareStateShorterThanItsFlagsSay, .shareStateLongerThanItsFlagsSay, .sharesKeyLength:
            "shares"
        case .expiryValueNot16, .expiryKeyLength: "expiry"
        case .cursorsValueNot32, .cursorsKeyLength: "cursors"
        case .eventIndexKeyLength: "eventIndex"
        case .pendingRedactionsKeyLength: "pendingRedactions"
        default: "log"
        }
    }

    /// The key written, the damaged value, and the whole line the reader
    /// must print to standard error after `read_store.py: refused DIR: `.
    func damage(_ scenario: ReaderScenario) -> (key: [UInt8], value: [UInt8], refusal: String) {
        let expected = scenario.expected
        let liveCreate = FormatBytes.event(expected.events[0])
        let revoke = FormatBytes.event(expected.events[3])
        let (a, b, c, h) = (scenario.names["A"]!, scenario.names["B"]!, scenario.names["C"]!, scenario.names["H"]!)
        let state = { (name: String) in FormatBytes.shareState(expected.shares.first { $0.recordName == name }!) }
        let log1 = FormatBytes.bigEndian(UInt64(1))
        let log4 = FormatBytes.bigEndian(UInt64(4))
        switch self {
        case .newerStoreFormat:
            return (Array("schema".utf8), [0, 0, 0, 4], "meta schema: store format 4 is newer than this reader knows (3)")
        case .schemaNotFourBytes:
            return (Array("schema".utf8), [0, 0, 0, 0, 2], "meta schema: schema is 5 bytes, not 4")
        case .unknownEventFormat:
            return (log1, Self.resealed(liveCreate) { $0[0] = 2 }, "log 1: event format version 2 is not one this reader knows (1)")
        case .undefinedFlagOnShareCreated:
            return (log1, Self.resealed(liveCreate) { $0[2] = 0x02 }, "log 1: shareCreated sets flag bits 0x02 that event format 1 does not define")
        case .undefinedFlagOnShareExpired:
            return (log4, Self.resealed(revoke) { $0[2] = 0x01 }, "log 4: shareExpired sets flag bits 0x01 that event format 1 does not define")
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
        case .shareCreatedPayloadShorterThan32:
            return (log1, Self.repacked(liveCreate, payload: 31), "log 1: shareCreated payload is 31 bytes, shorter than 32")
        case .redactedShareCreatedWithCard:
            let cardBytes = ReaderScenario.card("A").utf8.count
            return (log1, Self.resealed(liveCreate) { $0[2] = 0x01 }, "log 1: redacted shareCreated still carries \(cardBytes) vCard bytes")
        case .shareExpiredPayloadNot25:
            return (log4, Self.repacked(revoke, payload: 26), "log 4: shareExpired payload is 26 bytes, not 25")
        case .unknownExpiryReason:
            return (log4, Self.resealed(revoke) { $0[31 + 24] = 3 }, "log 4: expiry reason 3 is neither 1 (ttl) nor 2 (revoked)")
        case .unknownShareStateFormat:
            var damaged = state(h)
            damaged[0] = 1
            return (FormatBytes.identifier(h), damaged, "shares \(h): share-state format version 1 is not one this reader knows (2)")
        case .undefinedShareStateFlag:
            var damaged = state(a)
            damaged[1] |= 0x10
            return (FormatBytes.identifier(a), damaged, "shares \(a): share state sets flag bits 0x10 that format 2 does not define")
        case .arrivedRedactedBesideRevocation:
            var damaged = state(c)
            damaged[1] |= 0x08
            return (FormatBytes.identifier(c), damaged,
                    "shares \(c): share state is marked arrived redacted (bit 3) without a creation or beside a revocation")
        case .noShareStateFlag:
            var damaged = state(b)
            damaged[1] = 0
            return (FormatBytes.identifier(b), damaged, "shares \(b): share state has no part")
        case .ttlEndBesideCreation:
            // B's own TTL end, the sweep's R/6 at its expiresAt.
            var damaged = state(b) + FormatBytes.shareEnd(ReaderOutput.End(at: ReaderScenario.t + 61_000, origin: expected.meta.replica, originSequence: 6))
            damaged[1] = 0x05
            return (FormatBytes.identifier(b), damaged, "shares \(b): share state has a TTL end (bit 2) beside a creation (bit 0)")
        case .shareStateShorterThanItsFlagsSay:
            return (FormatBytes.identifier(b), Array(state(b).prefix(49)), "shares \(b): share state with flags 0x01 is 49 bytes, not 50")
        case .shareStateLongerThanItsFlagsSay:
            return (FormatBytes.identifier(c), state(c) + [0], "shares \(c): share state with flags 0x03 is 83 bytes, not 82")
        case .expiryValueNot16:
            let entry = expected.expiry.first { $0.recordName == a }!
            return (FormatBytes.expiryKey(entry), Array(FormatBytes.expiryValue(entry).prefix(15)), "expiry \(a): value is 15 bytes, not 16")
        case .cursorsValueNot32:
            let value = FormatBytes.identifier(ReaderScenario.rival) + FormatBytes.bigEndian(UInt64(7)) + FormatBytes.bigEndian(UInt64(9))
            return (FormatBytes.identifier(ReaderScenario.foreign), Array(value.prefix(31)),
                    "cursors \(ReaderScenario.foreign): value is 31 bytes, not 32")
        case .logKeyZero:
            return (FormatBytes.bigEndian(UInt64(0)), revoke, "log 0: log key 0 is not a position: positions start at 1")
        case .logKeyNot8Bytes:
            return ([UInt8](repeating: 0, count: 7), revoke, "log: log key is 7 bytes, not 8")
        case .logGap:
            return (FormatBytes.bigEndian(UInt64(22)), revoke, "log 22: position follows 20: the log has a gap")
        case .eventIndexKeyLength:
            return ([UInt8](repeating: 0x11, count: 23), FormatBytes.bigEndian(UInt64(1)), "eventIndex: eventIndex key is 23 bytes, not 24")
        case .sharesKeyLength:
            return (Array(FormatBytes.identifier(a).prefix(15)), state(a), "shares: shares key is 15 bytes, not 16")
        case .expiryKeyLength:
            let entry = expected.expiry.first { $0.recordName == a }!
            return (Array(FormatBytes.expiryKey(entry).prefix(23)), FormatBytes.expiryValue(entry), "expiry: expiry key is 23 bytes, not 24")
        case .pendingRedactionsKeyLength:
            return ([UInt8](repeating: 0, count: 7), [], "pendingRedactions: pendingRedactions key is 7 bytes, not 8")
        case .cursorsKeyLength:
            let value = FormatBytes.identifier(ReaderScenario.rival) + FormatBytes.bigEndian(UInt64(7))
            return (Array(FormatBytes.identifier(ReaderScenario.foreign).prefix(15)), value, "cursors: cursors key is 15 bytes, not 16")
        }
    }

    /// `event` changed by `change`, with a CRC-32 over the changed bytes.
    private static func resealed(_ event: [UInt8], _ change: (inout [UInt8]) -> Void) -> [UInt8] {
        var body = Array(event.dropLast(4))
        change(&body)
        return FormatBytes.sealed(body)
    }

    /// `event` with its payload cut or zero-padded to `payload` bytes, its
    /// length field n and CRC-32 made to match: a well-formed event whose
    /// payload has the wrong size for its kind.
    private static func repacked(_ event: [UInt8], payload: Int) -> [UInt8] {
        let old = Array(event[31..<(event.count - 4)])
        let new = Array(old.prefix(payload)) + [UInt8](repeating: 0, count: max(0, payload - old.count))
        return FormatBytes.sealed(Array(event[0..<27]) + FormatBytes.bigEndian(UInt32(payload)) + new)
    }
}
