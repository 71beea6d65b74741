import Foundation
import SampleCards
import ShareLog
import TestSupport
import Testing
@testable import ShareSync

/// A clip that guesses record names is slowed down per client, across its
/// connections, and only time earns its allowance back (docs/SYNC.md
/// "Replicas, roles and what moves"). `ClipServer.answer` returns its
/// delay, so the rule is asserted here, at a clock the test sets: an
/// allowance of 16 unknown names, one earned back every 50 ms, at most
/// 2 s of delay an answer.
@Suite struct ClipServerTests {
    let directory = TemporaryDirectory("clip-server")
    let store: ShareStore
    let known: RecordName
    let throttle = GuessingThrottle(allowance: 16, interval: .milliseconds(50), cap: .seconds(2))
    let start = ContinuousClock.now

    init() throws {
        var options = ShareStore.Options()
        options.clock = FixedClock(Timestamp(milliseconds: 1_800_000_000_000))
        options.environment.durability = .noSync
        store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true, options: options)
        known = try store.create(vCard: SampleCard.make(index: 1)).recordName
    }

    /// A connection of `client`: a clip server of its own, sharing the throttle.
    func connection(_ client: String = "uid 1000") -> ClipServer {
        ClipServer(options: SessionOptions(), throttle: throttle, client: client)
    }

    static func unknown(_ count: Int) -> [RecordName] { (0..<count).map { _ in RecordName(uuid: UUID()) } }

    func delay(_ names: [RecordName], on connection: ClipServer, after elapsed: Duration = .zero) throws -> Duration? {
        try connection.answer(names, from: store, at: start + elapsed).delay
    }

    @Test func theAllowanceIsPerClientSoANewConnectionDoesNotStartItAgain() throws {
        #expect(try delay(Self.unknown(16), on: connection()) == nil)
        // A new connection of the same client, at the same moment: the
        // 17th unknown name waits one interval.
        #expect(try delay(Self.unknown(1), on: connection()) == .milliseconds(50))
        // Another client has its own allowance.
        #expect(try delay(Self.unknown(16), on: connection("uid 1001")) == nil)
    }

    @Test func knownNamesMixedInDoNotEarnTheAllowanceBack() throws {
        let clip = connection()
        #expect(try delay(Self.unknown(16), on: clip) == nil)
        let answer = try clip.answer([known], from: store, at: start)
        #expect(answer.delay == nil)
        #expect(answer.records.map(\.name) == [known] && answer.records[0].events.count == 1)
        #expect(try delay(Self.unknown(1), on: clip) == .milliseconds(50))
        #expect(try delay([known] + Self.unknown(1), on: clip) == .milliseconds(100))
    }

    @Test func timeEarnsItBackOneNameAnInterval() throws {
        let clip = connection()
        #expect(try delay(Self.unknown(16), on: clip) == nil)
        // 100 ms later two names are earned back: two pass, the third waits 50 ms.
        #expect(try delay(Self.unknown(3), on: clip, after: .milliseconds(100)) == .milliseconds(50))
    }

    @Test func oneAnswerWaitsAtMostTheCapAndAGuesserThatStopsIsForgiven() throws {
        // 64 at once would wait 2.4 s for the last one; the cap is 2 s.
        #expect(try delay(Self.unknown(64), on: connection()) == .seconds(2))
        // What stays owed is bounded by the cap and the allowance (2.8 s
        // ahead): 100 ms later one more waits 2.85 - 0.9 = 1.95 s.
        #expect(try delay(Self.unknown(1), on: connection(), after: .milliseconds(100)) == .milliseconds(1_950))
        // 2.9 s after the burst, a whole allowance is free again.
        #expect(try delay(Self.unknown(16), on: connection(), after: .milliseconds(2_900)) == nil)
    }
}
