import Foundation
import ShareHTTP
import ShareLog
import ShareSync
import Testing

/// The events form: one entry of a sync `records` message, which a clip
/// applies to its own store and then knows what the gateway's store knows.
@Suite struct GatewayEventsTests {
    /// The one record entry of an events body, decoded as ShareSync does.
    private func record(_ response: GatewayResponse) throws -> Message.Record {
        #expect(response.header("Content-Type") == "application/vnd.sharelog.events")
        let message = try Message(Frame(type: .records, payload: response.body))
        var records: [Message.Record] = []
        if case .records(let found) = message { records = found }
        #expect(message.type == .records)
        #expect(records.count == 1)
        return try #require(records.first)
    }

    @Test func aClipThatAppliesALiveSharesEventsShowsTheSameCard() throws {
        let fixture = try GatewayFixture()
        let name = fixture.live.recordName
        let response = try fixture.gateway().respond(to: .get(link(name), accept: Accepting.events))
        #expect(response.status.code == 200)
        let entry = try record(response)
        #expect(entry.name == name)
        let events = try entry.events.decoded()
        #expect(events.count == 1)
        let clip = try fixture.clipStore()
        #expect(try clip.apply(events).applied == 1)
        let seen = try clip.fetch(name, at: GatewayFixture.now)
        #expect(seen == (try fixture.store.fetch(name, at: GatewayFixture.now)))
        guard case .live(let share) = seen else {
            Issue.record("the clip sees \(seen)")
            return
        }
        #expect(share.vCard == fixture.liveCard)
        #expect(share.createdAt == Timestamp(milliseconds: 1_800_000_000_000))
        #expect(share.expiresAt == Timestamp(milliseconds: 1_800_000_120_000))
    }

    /// An ended share's events come without the card, and tell the clip
    /// when and why the share ended.
    @Test(arguments: [
        (true, FetchResult.expired(at: Timestamp(milliseconds: 1_799_996_460_000), reason: .ttl)),
        (false, FetchResult.expired(at: Timestamp(milliseconds: 1_799_999_100_000), reason: .revoked)),
    ])
    func aClipThatAppliesAnEndedSharesEventsKnowsItEnded(ttl: Bool, expected: FetchResult) throws {
        let fixture = try GatewayFixture()
        let name = ttl ? fixture.expired.recordName : fixture.revoked.recordName
        let response = try fixture.gateway().respond(to: .get(link(name), accept: Accepting.events))
        #expect(response.status.code == 410)
        #expect(response.header("Cache-Control") == "no-store")
        let entry = try record(response)
        #expect(entry.name == name)
        let events = try entry.events.decoded()
        #expect(!events.isEmpty)
        for event in events {
            if case .shareCreated(let created) = event.kind { #expect(created.vCard == nil, "an ended share's card went out") }
        }
        #expect(!response.text.contains("BEGIN:VCARD"))
        let clip = try fixture.clipStore()
        _ = try clip.apply(events)
        #expect(try clip.fetch(name, at: GatewayFixture.now) == expected)
        #expect(try fixture.store.fetch(name, at: GatewayFixture.now) == expected)
    }

    @Test func anUnknownIdIsAnEntryWithNoEvents() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get(link(GatewayFixture.unknown), accept: Accepting.events))
        #expect(response.status.code == 404)
        let entry = try record(response)
        #expect(entry.name == GatewayFixture.unknown)
        #expect(entry.events.count == 0)
        let clip = try fixture.clipStore()
        _ = try clip.apply(try entry.events.decoded())
        #expect(try clip.fetch(GatewayFixture.unknown, at: GatewayFixture.now) == .notFound)
    }

    @Test func applyingTheSameEventsTwiceChangesNothing() throws {
        let fixture = try GatewayFixture()
        let gateway = try fixture.gateway()
        let clip = try fixture.clipStore()
        for expected in [1, 0] {
            let response = gateway.respond(to: .get(link(fixture.live.recordName), accept: Accepting.events))
            let report = try clip.apply(try record(response).events.decoded())
            #expect(report.applied == expected)
        }
        #expect(try clip.stats().events == 1)
    }

    @Test func aDamagedLinkIsPlainTextNotEvents() throws {
        let fixture = try GatewayFixture()
        let response = try fixture.gateway().respond(to: .get("/appclip?id=nope", accept: Accepting.events))
        #expect(response.status.code == 400)
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.text.hasPrefix("Damaged link: This card link is damaged: "))
    }
}
