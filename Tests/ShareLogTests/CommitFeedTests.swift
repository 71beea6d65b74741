import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// `commits()` announces each commit's last log position, so a follower
/// never polls.
@Suite(.hangDeadline) struct CommitFeedTests {
    @Test func eachCommitThatMovesTheLogIsAnnouncedWithItsLastPosition() async throws {
        let test = try TestStore()
        let store = test.store
        let start = test.clock.now()
        var positions = try store.commits().makeAsyncIterator()
        #expect(await positions.next() == 0)

        _ = try await store.create(vCard: smallCard(1), ttl: .seconds(60))
        #expect(await positions.next() == 1)

        let replica = ForeignReplica()
        let foreign = [replica.created(at: start, ttl: .seconds(600)), replica.created(at: start, ttl: .seconds(600))]
        _ = try await store.apply(foreign)
        #expect(await positions.next() == 3)

        // A refused write and a write that logs nothing announce nothing: the
        // next announcement is the sweep's one expiry, at position 4.
        await #expect(throws: ShareLogError.invalidTTL(seconds: 1)) { try await store.create(vCard: smallCard(2), ttl: .seconds(1)) }
        _ = try await store.apply(foreign)
        #expect(try await store.sweep(at: start.advanced(by: .seconds(120))).expired == 1)
        #expect(await positions.next() == 4)
    }

    @Test func aLateSubscriberStartsFromTheCurrentPosition() async throws {
        let test = try TestStore()
        _ = try await test.store.create(vCards: [smallCard(1), smallCard(2)], ttl: .seconds(60))
        var positions = try test.store.commits().makeAsyncIterator()
        #expect(await positions.next() == 2)
    }

    @Test func aSubscriberNeverEndsOnAnOlderPositionThanOneItWasGiven() async {
        let feed = CommitFeed()
        // A commit announces position 2 while the subscriber's first read
        // still sees the older snapshot, position 1.
        var positions = feed.subscribe {
            feed.publish(2)
            return 1
        }.makeAsyncIterator()
        #expect(await positions.next() == 2)
        feed.publish(4)
        feed.publish(3)
        #expect(await positions.next() == 4)
        feed.finish()
        #expect(await positions.next() == nil)
    }
}
