import Testing
@testable import ShareLog

/// A share a test created, with everything the test expects the store to
/// give back for it: the values come from the test's own inputs, never from
/// the store.
struct KnownShare {
    let name: RecordName
    let card: [UInt8]
    let createdAt: Timestamp
    let expiresAt: Timestamp

    /// Creates a share of `card` living `ttl` through `store`, whose clock says `now`.
    static func create(_ card: [UInt8], ttl: Duration, now: Timestamp, in store: ShareStore) throws -> KnownShare {
        let created = try store.create(vCard: card, ttl: ttl)
        return KnownShare(name: created.recordName, card: card, createdAt: now, expiresAt: now.advanced(by: ttl))
    }

    /// Expects `fetch` at `createdAt`, before any share's time is up, to give
    /// each share back exactly: live with its card, or, for the shares in
    /// `ended` (those a sweep committed), expired by TTL at its `expiresAt`.
    static func expect(
        _ shares: [KnownShare], ended: Set<RecordName>, in store: ShareStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for share in shares {
            let expected: FetchResult = ended.contains(share.name)
                ? .expired(at: share.expiresAt, reason: .ttl)
                : .live(Share(recordName: share.name, vCard: share.card, createdAt: share.createdAt, expiresAt: share.expiresAt))
            #expect(try store.fetch(share.name, at: share.createdAt) == expected, sourceLocation: sourceLocation)
        }
    }

    /// The card each `shareCreated` entry of the log holds, by record name
    /// (nil once compaction redacted it).
    static func loggedCards(in store: ShareStore) throws -> [RecordName: [UInt8]?] {
        var cards: [RecordName: [UInt8]?] = [:]
        for logged in try store.events(after: 0, limit: .max, maxBytes: .max) {
            if case .shareCreated(let created) = logged.event.kind { cards[created.recordName] = created.vCard }
        }
        return cards
    }
}
