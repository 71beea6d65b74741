import Foundation
import ShareLog

/// A store holding every kind of entry the on-disk format has: live shares
/// (some with photos on overflow pages), shares expired by a sweep and
/// redacted by compaction, revoked shares, one revoked after compaction (a
/// pending redaction), and a share and an unknown kind from another replica.
struct PopulatedStore {
    let fixture: ReliabilityStore
    var store: ShareStore { fixture.store }
    /// When the store was last written; every share's state is fixed from then on.
    let now: Timestamp

    init(label: String = #function) throws {
        fixture = try ReliabilityStore(label: label)
        let store = fixture.store
        var names: [RecordName] = []
        for index in 0..<24 {
            fixture.clock.set(ReliabilityStore.start + Int64(index) * 1000)
            let card = index % 6 == 0 ? SampleCard.make(index: index, photoBytes: 5000) : SampleCard.make(index: index)
            names.append(try store.create(vCard: card, ttl: .seconds(index < 12 ? 120 : 3600)).recordName)
        }
        try store.revoke(names[12])
        try store.revoke(names[13])
        fixture.clock.set(ReliabilityStore.start + 200_000)
        try store.sweep()
        try store.compact()
        try store.revoke(names[14])
        let foreign = ReplicaID.random()
        let created = Timestamp(milliseconds: ReliabilityStore.start)
        try store.apply([
            Event(id: EventID(origin: foreign, sequence: 1), kind: .shareCreated(ShareCreated(
                recordName: .random(), vCard: SampleCard.make(index: 99), createdAt: created,
                expiresAt: created.advanced(by: .seconds(3600))))),
            Event(id: EventID(origin: foreign, sequence: 2), kind: .unknown(code: 9, flags: 0, payload: [1, 2, 3])),
        ])
        now = fixture.clock.now()
    }

    /// Every log entry, as the store reads it.
    func events() throws -> [LoggedEvent] { try store.events(after: 0, limit: 10_000, maxBytes: .max) }
}
