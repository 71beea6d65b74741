import Foundation
import ShareLog
import TestSupport

/// A store driven through every state docs/FORMAT.md describes, with a
/// clock the scenario sets, and the contents the document says it must then
/// hold, written out by hand from the steps below.
///
/// Nothing in `expected` is read back through ShareLog: times are the
/// clock's settings plus the TTLs, cards are the literals given to `create`,
/// record names come from `create`'s receipts (local) or are chosen here
/// (foreign), and the local replica id is the store's identity.
///
/// Steps (T = `ReliabilityStore.start`; R = this replica, F and E foreign
/// ones, E's id smaller than F's; X/0 is share X's TTL end, whose id is
/// its record name and counter 0 on every replica):
///
/// | log | event | at | what it shows |
/// |---|---|---|---|
/// | 1 | R/1 create A, TTL 1 h | T | a live share, its card on overflow pages |
/// | 2 | R/2 create B, TTL 60 s | T+1 s | swept, then compacted |
/// | 3 | R/3 create C, TTL 1 h | T+2 s | revoked, then compacted |
/// | 4 | R/4 revoke C | T+3 s | |
/// | 5 | R/5 create D, TTL 300 s | T+4 s | swept after compaction: pending redaction |
/// | 6 | B/0 sweep expires B at its expiresAt | T+100 s | then compaction redacts entries 2 and 3 |
/// | 7 | D/0 sweep expires D at its expiresAt | T+400 s | |
/// | 8 | R/6 create E, TTL 1 h | T+401 s | revoked after compaction: pending redaction |
/// | 9 | R/7 revoke E | T+402 s | |
/// | 10 | F/1 revoke G at T+10 s | applied | a tombstone before its creation |
/// | 11 | F/2 unknown kind 9, flags 0xa5 | applied | kept with its flags and payload |
/// | 12 | F/3 create G at T+5 s, TTL 1 h | applied | creation behind its tombstone |
/// | 13 | F/4 TTL expiry of H at T+20 s | applied | a tombstone whose creation never came |
/// | 14 | F/5 create I at T+400 s, TTL 1 h | applied | a live share made elsewhere |
/// | 15 | F/6 TTL expiry of J at T+30 s | applied | a tombstone with a TTL end ... |
/// | 16 | F/7 revoke J at T+40 s | applied | ... and a revocation: both parts |
/// | 17 | F/8 TTL expiry of L at T+60 s | applied | its creation arrives after it: ... |
/// | 18 | F/9 create L at T, TTL 60 s | applied | ... the TTL end is dropped |
/// | 19 | F/10 create K at T+70 s, TTL 1 h | applied | a pending share whose creation ... |
/// | 20 | E/1 create K at T+80 s, TTL 1 h | applied | ... a rival with a smaller id replaces |
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
    static let j = "3333cccc-0000-4000-8000-0000000000d1"
    static let k = "aaaa5555-0000-4000-8000-0000000000d2"
    static let l = "bbbb0000-0000-4000-8000-0000000000d3"
    /// A second foreign replica, whose ids sort before `foreign`'s.
    static let rival = "e0000000-0000-4000-8000-0000000000e1"

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
            Event(id: id(6), kind: .shareExpired(ShareExpired(recordName: RecordName(Self.j)!, at: at(30_000), reason: .ttl))),
            Event(id: id(7), kind: .shareExpired(ShareExpired(recordName: RecordName(Self.j)!, at: at(40_000), reason: .revoked))),
            Event(id: id(8), kind: .shareExpired(ShareExpired(recordName: RecordName(Self.l)!, at: at(60_000), reason: .ttl))),
            Event(id: id(9), kind: .shareCreated(ShareCreated(
                recordName: RecordName(Self.l)!, vCard: Array(Self.card("L").utf8), createdAt: at(0), expiresAt: at(60_000)))),
            Event(id: id(10), kind: .shareCreated(ShareCreated(
                recordName: RecordName(Self.k)!, vCard: Array(Self.card("K").utf8), createdAt: at(70_000), expiresAt: at(3_670_000)))),
            Event(id: EventID(origin: ReplicaID(Self.rival)!, counter: 1), kind: .shareCreated(ShareCreated(
                recordName: RecordName(Self.k)!, vCard: Array(Self.card("k").utf8), createdAt: at(80_000), expiresAt: at(3_680_000)))),
        ])

        let text = { (name: RecordName) in name.uuid.uuidString.lowercased() }
        self.fixture = fixture
        names = [
            "A": text(a), "B": text(b), "C": text(c), "D": text(d), "E": text(e), "G": Self.g, "H": Self.h, "I": Self.i,
            "J": Self.j, "K": Self.k, "L": Self.l,
        ]
        // Where the store lives, as the file system reports it.
        let home = StoreHome.hex(of: fixture.path)
        expected = Self.expectation(
            names: names, replica: store.replicaID.uuid.uuidString.lowercased(), epoch: store.epoch.uuid.uuidString.lowercased(),
            dataFile: home)
    }

    /// The state the steps leave, by hand, by the rules of docs/FORMAT.md.
    private static func expectation(names: [Character: String], replica r: String, epoch: String, dataFile: String?) -> ReaderOutput {
        let f = foreign, e = rival
        let created = { (sequence: UInt64, origin: String, originSequence: UInt64, letter: Character, card: Character, createdAt: Int64, expiresAt: Int64, redacted: Bool) in
            ReaderOutput.Event(
                sequence: sequence, version: 1, kind: 1, kindName: "shareCreated", flags: redacted ? 1 : 0, origin: origin,
                originSequence: originSequence, recordName: names[letter]!, createdAt: t + createdAt, expiresAt: t + expiresAt,
                redacted: redacted, vCard: redacted ? nil : Self.card(card))
        }
        let expired = { (sequence: UInt64, origin: String, originSequence: UInt64, letter: Character, at: Int64, reason: String) in
            ReaderOutput.Event(
                sequence: sequence, version: 1, kind: 2, kindName: "shareExpired", flags: 0, origin: origin,
                originSequence: originSequence, recordName: names[letter]!, at: t + at, reason: reason)
        }
        let events = [
            created(1, r, 1, "A", "A", 0, 3_600_000, false),
            created(2, r, 2, "B", "B", 1000, 61_000, true),
            created(3, r, 3, "C", "C", 2000, 3_602_000, true),
            expired(4, r, 4, "C", 3000, "revoked"),
            created(5, r, 5, "D", "D", 4000, 304_000, false),
            expired(6, names["B"]!, 0, "B", 61_000, "ttl"),
            expired(7, names["D"]!, 0, "D", 304_000, "ttl"),
            created(8, r, 6, "E", "E", 401_000, 4_001_000, false),
            expired(9, r, 7, "E", 402_000, "revoked"),
            expired(10, f, 1, "G", 10_000, "revoked"),
            ReaderOutput.Event(sequence: 11, version: 1, kind: 9, kindName: "unknown", flags: 0xA5, origin: f, originSequence: 2, payload: "010203"),
            created(12, f, 3, "G", "G", 5000, 3_605_000, false),
            expired(13, f, 4, "H", 20_000, "ttl"),
            created(14, f, 5, "I", "I", 400_000, 4_000_000, false),
            expired(15, f, 6, "J", 30_000, "ttl"),
            expired(16, f, 7, "J", 40_000, "revoked"),
            expired(17, f, 8, "L", 60_000, "ttl"),
            created(18, f, 9, "L", "L", 0, 60_000, false),
            created(19, f, 10, "K", "K", 70_000, 3_670_000, false),
            created(20, e, 1, "K", "k", 80_000, 3_680_000, false),
        ]
        let creation = { (createdAt: Int64, expiresAt: Int64, origin: String, originSequence: UInt64, position: UInt64) in
            ReaderOutput.Creation(
                createdAt: t + createdAt, expiresAt: t + expiresAt, origin: origin, originSequence: originSequence, position: position)
        }
        let end = { (at: Int64, origin: String, originSequence: UInt64) in
            ReaderOutput.End(at: t + at, origin: origin, originSequence: originSequence)
        }
        let share = { (letter: Character, creation: ReaderOutput.Creation?, revocation: ReaderOutput.End?, ttlEnd: ReaderOutput.End?) in
            ReaderOutput.Share(recordName: names[letter]!, version: 2, creation: creation, revocation: revocation, ttlEnd: ttlEnd, arrivedRedacted: false)
        }
        // A TTL end is stored only while no creation is known: B, D and L
        // keep their creation alone, and the answers get the end from its
        // expiresAt.
        let shares = [
            share("A", creation(0, 3_600_000, r, 1, 1), nil, nil),
            share("B", creation(1000, 61_000, r, 2, 2), nil, nil),
            share("C", creation(2000, 3_602_000, r, 3, 3), end(3000, r, 4), nil),
            share("D", creation(4000, 304_000, r, 5, 5), nil, nil),
            share("E", creation(401_000, 4_001_000, r, 6, 8), end(402_000, r, 7), nil),
            share("G", creation(5000, 3_605_000, f, 3, 12), end(10_000, f, 1), nil),
            share("H", nil, nil, end(20_000, f, 4)),
            share("I", creation(400_000, 4_000_000, f, 5, 14), nil, nil),
            share("J", nil, end(40_000, f, 7), end(30_000, f, 6)),
            share("K", creation(80_000, 3_680_000, e, 1, 20), nil, nil),
            share("L", creation(0, 60_000, f, 9, 18), nil, nil),
        ]
        let local: [ReaderOutput.IndexEntry] = zip(1...7, [1, 2, 3, 4, 5, 8, 9] as [UInt64]).map {
            ReaderOutput.IndexEntry(origin: r, originSequence: UInt64($0), sequence: $1)
        } + [ReaderOutput.IndexEntry(origin: names["B"]!, originSequence: 0, sequence: 6), ReaderOutput.IndexEntry(origin: names["D"]!, originSequence: 0, sequence: 7)]
        let applied: [ReaderOutput.IndexEntry] = (1...10).map { ReaderOutput.IndexEntry(origin: f, originSequence: UInt64($0), sequence: UInt64($0 + 9)) }
        let index = local + applied + [ReaderOutput.IndexEntry(origin: e, originSequence: 1, sequence: 20)]
        let pending = { (letter: Character, position: UInt64, expiresAt: Int64) in
            ReaderOutput.ExpiryEntry(clampedExpiresAt: UInt64(t + expiresAt), recordName: names[letter]!, position: position, expiresAt: t + expiresAt)
        }
        return ReaderOutput(
            databases: ["meta": 7, "log": 20, "eventIndex": 20, "shares": 11, "expiry": 3, "pendingRedactions": 5, "cursors": 0, "tokens": 0, "idempotency": 0],
            // Pending: A, I and K. Ended: B, C, D, E, G, H, J and L.
            meta: ReaderOutput.Meta(schema: 3, replica: r, epoch: epoch, originSequence: 7, liveCount: 3, expiredCount: 8, dataFile: dataFile, trimmedThrough: nil),
            events: events,
            // Every key list in LMDB's order: bytewise, which for
            // lowercase UUID text and big-endian integers is this order.
            eventIndex: index.sorted { ($0.origin, $0.originSequence) < ($1.origin, $1.originSequence) },
            shares: shares.sorted { $0.recordName < $1.recordName },
            // K's entry is its winning rival's (log 20), not F/10's.
            expiry: [pending("A", 1, 3_600_000), pending("K", 20, 3_680_000), pending("I", 14, 4_000_000)],
            // 5 D and 8 E ended after compaction; 12 G and 18 L arrived
            // behind their tombstones; 19 lost K to a smaller id.
            pendingRedactions: [5, 8, 12, 18, 19],
            cursors: [])
    }
}
