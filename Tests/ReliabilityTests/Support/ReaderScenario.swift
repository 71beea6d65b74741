import Foundation
import ShareLog

/// A store driven through every state docs/FORMAT.md describes, with a
/// clock the scenario sets, and the contents the document says it must then
/// hold, written out by hand from the steps below.
///
/// Nothing in `expected` is read back through ShareLog: times are the
/// clock's settings plus the TTLs, cards are the literals given to `create`,
/// record names come from `create`'s receipts (local) or are chosen here
/// (foreign), and the local replica id is the store's identity.
///
/// Steps (T = `ReliabilityStore.start`; R = this replica, F = a foreign one):
///
/// | log | event | at | what it shows |
/// |---|---|---|---|
/// | 1 | R/1 create A, TTL 1 h | T | a live share, its card on overflow pages |
/// | 2 | R/2 create B, TTL 60 s | T+1 s | swept, then compacted |
/// | 3 | R/3 create C, TTL 1 h | T+2 s | revoked, then compacted |
/// | 4 | R/4 revoke C | T+3 s | |
/// | 5 | R/5 create D, TTL 300 s | T+4 s | swept after compaction: pending redaction |
/// | 6 | R/6 sweep expires B at its expiresAt | T+100 s | then compaction redacts entries 2 and 3 |
/// | 7 | R/7 sweep expires D at its expiresAt | T+400 s | |
/// | 8 | R/8 create E, TTL 1 h | T+401 s | revoked after compaction: pending redaction |
/// | 9 | R/9 revoke E | T+402 s | |
/// | 10 | F/1 revoke G at T+10 s | applied | a tombstone before its creation |
/// | 11 | F/2 unknown kind 9, flags 0xa5 | applied | kept with its flags and payload |
/// | 12 | F/3 create G at T+5 s, TTL 1 h | applied | creation behind its tombstone |
/// | 13 | F/4 TTL expiry of H at T+20 s | applied | a tombstone whose creation never came |
/// | 14 | F/5 create I at T+400 s, TTL 1 h | applied | a live share made elsewhere |
struct ReaderScenario {
    let fixture: ReliabilityStore
    let expected: ReaderOutput
    /// Record names of the shares, as UUID text, by letter.
    let names: [Character: String]
    var path: String { fixture.path }

    static let t = ReliabilityStore.start
    static let foreign = "f0000000-0000-4000-8000-0000000000f1"
    static let g = "00000000-0000-4000-8000-0000000000a7"
    static let h = "ffffffff-0000-4000-8000-0000000000b8"
    static let i = "7777aaaa-0000-4000-8000-0000000000c9"

    /// A card whose text says whose it is; A's is about 6 KB.
    static func card(_ letter: Character) -> String {
        let note = letter == "A" ? "NOTE:" + String(repeating: "0123456789", count: 600) + "\r\n" : ""
        let name = letter == "I" ? "Zoë Ireland" : "Person \(letter)"
        return "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:\(name)\r\n\(note)END:VCARD\r\n"
    }

    init(label: String = #function) throws {
        let fixture = try ReliabilityStore(label: label)
        let store = fixture.store
        let t = Self.t
        func create(_ letter: Character, at time: Int64, ttl: Int64) throws -> RecordName {
            fixture.clock.set(time)
            return try store.create(vCard: Array(Self.card(letter).utf8), ttl: .seconds(ttl)).recordName
        }
        let a = try create("A", at: t, ttl: 3600)
        let b = try create("B", at: t + 1000, ttl: 60)
        let c = try create("C", at: t + 2000, ttl: 3600)
        fixture.clock.set(t + 3000)
        try store.revoke(c)
        let d = try create("D", at: t + 4000, ttl: 300)
        fixture.clock.set(t + 100_000)
        try store.sweep()
        try store.compact()
        fixture.clock.set(t + 400_000)
        try store.sweep()
        let e = try create("E", at: t + 401_000, ttl: 3600)
        fixture.clock.set(t + 402_000)
        try store.revoke(e)

        let origin = ReplicaID(Self.foreign)!
        func id(_ sequence: UInt64) -> EventID { EventID(origin: origin, counter: sequence) }
        func at(_ offset: Int64) -> Timestamp { Timestamp(milliseconds: t + offset) }
        try store.apply([
            Event(id: id(1), kind: .shareExpired(ShareExpired(recordName: RecordName(Self.g)!, at: at(10_000), reason: .revoked))),
            Event(id: id(2), kind: .unknown(code: 9, flags: 0xA5, payload: [1, 2, 3])),
            Event(id: id(3), kind: .shareCreated(ShareCreated(
                recordName: RecordName(Self.g)!, vCard: Array(Self.card("G").utf8), createdAt: at(5000), expiresAt: at(3_605_000)))),
            Event(id: id(4), kind: .shareExpired(ShareExpired(recordName: RecordName(Self.h)!, at: at(20_000), reason: .ttl))),
            Event(id: id(5), kind: .shareCreated(ShareCreated(
                recordName: RecordName(Self.i)!, vCard: Array(Self.card("I").utf8), createdAt: at(400_000), expiresAt: at(4_000_000)))),
        ])

        let text = { (name: RecordName) in name.uuid.uuidString.lowercased() }
        self.fixture = fixture
        names = ["A": text(a), "B": text(b), "C": text(c), "D": text(d), "E": text(e), "G": Self.g, "H": Self.h, "I": Self.i]
        expected = Self.expectation(
            names: names, replica: store.replicaID.uuid.uuidString.lowercased(), epoch: store.epoch.uuid.uuidString.lowercased())
    }

    /// The state the steps leave, by hand.
    private static func expectation(names: [Character: String], replica r: String, epoch: String) -> ReaderOutput {
        let f = foreign
        let created = { (sequence: UInt64, origin: String, originSequence: UInt64, letter: Character, createdAt: Int64, expiresAt: Int64, redacted: Bool) in
            ReaderOutput.Event(
                sequence: sequence, version: 1, kind: 1, kindName: "shareCreated", flags: redacted ? 1 : 0, origin: origin,
                originSequence: originSequence, recordName: names[letter]!, createdAt: t + createdAt, expiresAt: t + expiresAt,
                redacted: redacted, vCard: redacted ? nil : card(letter))
        }
        let expired = { (sequence: UInt64, origin: String, originSequence: UInt64, letter: Character, at: Int64, reason: String) in
            ReaderOutput.Event(
                sequence: sequence, version: 1, kind: 2, kindName: "shareExpired", flags: 0, origin: origin,
                originSequence: originSequence, recordName: names[letter]!, at: t + at, reason: reason)
        }
        let events = [
            created(1, r, 1, "A", 0, 3_600_000, false),
            created(2, r, 2, "B", 1000, 61_000, true),
            created(3, r, 3, "C", 2000, 3_602_000, true),
            expired(4, r, 4, "C", 3000, "revoked"),
            created(5, r, 5, "D", 4000, 304_000, false),
            expired(6, r, 6, "B", 61_000, "ttl"),
            expired(7, r, 7, "D", 304_000, "ttl"),
            created(8, r, 8, "E", 401_000, 4_001_000, false),
            expired(9, r, 9, "E", 402_000, "revoked"),
            expired(10, f, 1, "G", 10_000, "revoked"),
            ReaderOutput.Event(sequence: 11, version: 1, kind: 9, kindName: "unknown", flags: 0xA5, origin: f, originSequence: 2, payload: "010203"),
            created(12, f, 3, "G", 5000, 3_605_000, false),
            expired(13, f, 4, "H", 20_000, "ttl"),
            created(14, f, 5, "I", 400_000, 4_000_000, false),
        ]
        let creation = { (createdAt: Int64, expiresAt: Int64, origin: String, originSequence: UInt64) in
            ReaderOutput.Creation(createdAt: t + createdAt, expiresAt: t + expiresAt, origin: origin, originSequence: originSequence)
        }
        let expiry = { (at: Int64, reason: String, origin: String, originSequence: UInt64) in
            ReaderOutput.Expiry(at: t + at, reason: reason, origin: origin, originSequence: originSequence)
        }
        let share = { (letter: Character, creation: ReaderOutput.Creation?, expiry: ReaderOutput.Expiry?, holdsCard: Bool) in
            ReaderOutput.Share(recordName: names[letter]!, version: 1, creation: creation, expiry: expiry, vCard: holdsCard ? card(letter) : nil)
        }
        let shares = [
            share("A", creation(0, 3_600_000, r, 1), nil, true),
            share("B", creation(1000, 61_000, r, 2), expiry(61_000, "ttl", r, 6), false),
            share("C", creation(2000, 3_602_000, r, 3), expiry(3000, "revoked", r, 4), false),
            share("D", creation(4000, 304_000, r, 5), expiry(304_000, "ttl", r, 7), false),
            share("E", creation(401_000, 4_001_000, r, 8), expiry(402_000, "revoked", r, 9), false),
            share("G", creation(5000, 3_605_000, f, 3), expiry(10_000, "revoked", f, 1), false),
            share("H", nil, expiry(20_000, "ttl", f, 4), false),
            share("I", creation(400_000, 4_000_000, f, 5), nil, true),
        ]
        let recordCreates = [("A", 1, true), ("B", 2, false), ("C", 3, false), ("D", 5, true), ("E", 8, true), ("G", 12, true), ("I", 14, true)]
            .map { (letter: Character, sequence: UInt64, holds: Bool) in
                ReaderOutput.RecordCreate(recordName: names[letter]!, sequence: sequence, holdsVCard: holds)
            }
        let index = (1...9).map { ReaderOutput.IndexEntry(origin: r, originSequence: UInt64($0), sequence: UInt64($0)) }
            + (1...5).map { ReaderOutput.IndexEntry(origin: f, originSequence: UInt64($0), sequence: UInt64($0 + 9)) }
        return ReaderOutput(
            databases: ["meta": 6, "log": 14, "eventIndex": 14, "shares": 8, "expiry": 2, "recordCreates": 7, "pendingRedactions": 3],
            meta: ReaderOutput.Meta(schema: 1, replica: r, epoch: epoch, originSequence: 9, liveCount: 2, expiredCount: 6),
            events: events,
            // Every key list in LMDB's order: bytewise, which for
            // lowercase UUID text and big-endian integers is this order.
            eventIndex: index.sorted { ($0.origin, $0.originSequence) < ($1.origin, $1.originSequence) },
            shares: shares.sorted { $0.recordName < $1.recordName },
            expiry: [
                ReaderOutput.ExpiryEntry(expiresAt: UInt64(t + 3_600_000), recordName: names["A"]!),
                ReaderOutput.ExpiryEntry(expiresAt: UInt64(t + 4_000_000), recordName: names["I"]!),
            ],
            recordCreates: recordCreates.sorted { ($0.recordName, $0.sequence) < ($1.recordName, $1.sequence) },
            pendingRedactions: [5, 8, 12])
    }
}
