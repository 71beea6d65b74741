import Foundation
import SampleCards
import ShareLog
@testable import ShareSync
import TestSupport
import Testing

/// The relay's codec refuses every message that is no relay message with
/// `RelayFailure.invalidMessage`, its cause a value
/// (`InvalidRelayMessageReason`), and a card beyond the stream key's window
/// with `cardBeyondKeyWindow`; a live creation goes out sealed and comes
/// back with its card. No NATS server: the messages are made here.
@Suite struct RelayCodecTests {
    static let origin = ReplicaID("0000000d-0000-4000-8000-000000000001")!
    static let subject = "shares.test"
    static let sequence: UInt64 = 7

    /// A codec on a fresh stream key at `RelayReplica.now`'s hour.
    final class Fixture {
        let directory = TemporaryDirectory("relaycodec")
        let keyring: StreamKeyring
        let codec: RelayCodec

        init() throws {
            let path = directory.appending("stream.key")
            try StreamKeyring.create(at: path, now: RelayReplica.now)
            keyring = try StreamKeyring(path: path, now: RelayReplica.now)
            codec = RelayCodec(prefix: "shares", keyring: keyring)
        }

        /// The reason the codec refuses `body` with, or nil (with an issue
        /// recorded) when it accepts it or fails otherwise.
        func refusal(of body: [UInt8]) -> InvalidRelayMessageReason? {
            let message = IncomingMessage(subject: RelayCodecTests.subject, body: body, streamSequence: RelayCodecTests.sequence, pending: 0)
            do {
                let event = try codec.event(from: message)
                Issue.record("the codec accepted \(event)")
                return nil
            } catch {
                guard case .invalidMessage(RelayCodecTests.sequence, RelayCodecTests.subject, let reason) = error else {
                    Issue.record("the codec failed with \(error), not invalidMessage")
                    return nil
                }
                return reason
            }
        }
    }

    /// A creation without its card, expiring in an hour.
    static func redactedCreation(expiresAt: Timestamp = RelayReplica.now.advanced(by: .seconds(3600))) -> Event {
        Event(id: EventID(origin: origin, counter: 1), kind: .shareCreated(ShareCreated(
            recordName: RecordName.random(), vCard: nil, createdAt: RelayReplica.now, expiresAt: expiresAt)))
    }

    @Test func aLiveCreationGoesOutSealedAndComesBackWithItsCard() throws {
        let fixture = try Fixture()
        let redacted = Self.redactedCreation()
        guard case .shareCreated(let created) = redacted.kind else { return }
        let card = SampleCard.make(index: 1)
        let event = Event(id: redacted.id, kind: .shareCreated(
            ShareCreated(recordName: created.recordName, vCard: card, createdAt: created.createdAt, expiresAt: created.expiresAt)))
        let outgoing = try fixture.codec.message(for: event, cardIsLive: true)
        let message = IncomingMessage(subject: outgoing.subject, body: outgoing.body, streamSequence: 1, pending: 0)
        #expect(try fixture.codec.event(from: message) == event)
    }

    @Test func aBodyThatIsNoEnvelopeIsRefusedWithTheEnvelopeError() throws {
        let fixture = try Fixture()
        guard case .envelope(.truncated(count: 1, _)) = fixture.refusal(of: [1]) else {
            Issue.record("\(String(describing: fixture.refusal(of: [1])))")
            return
        }
        #expect(fixture.refusal(of: [9, 0]) == .envelope(.unknownVersion(9)))
        #expect(fixture.refusal(of: [1, 7]) == .envelope(.unknownForm(7)))
    }

    @Test func anEventThatDoesNotDecodeIsRefusedWithTheDecodingError() throws {
        let fixture = try Fixture()
        #expect(fixture.refusal(of: RelayEnvelope.plain([1, 2, 3])) == .event(.truncated(3)))
        let hour = fixture.keyring.hour + 1
        let cardKey = try #require(fixture.keyring.cardKey(forHour: hour))
        let sealed = RelayEnvelope.sealed(redactedEvent: [1, 2, 3], card: [0], hour: hour, cardKey: cardKey)
        #expect(fixture.refusal(of: sealed) == .event(.truncated(3)))
    }

    @Test func aSealedCardWithAnythingButARedactedCreationIsRefused() throws {
        let fixture = try Fixture()
        let hour = fixture.keyring.hour + 1
        let cardKey = try #require(fixture.keyring.cardKey(forHour: hour))
        let expired = Event(id: EventID(origin: Self.origin, counter: 2), kind: .shareExpired(
            ShareExpired(recordName: RecordName.random(), at: RelayReplica.now, reason: .revoked)))
        let body = RelayEnvelope.sealed(redactedEvent: EventCodec.encode(expired), card: [0], hour: hour, cardKey: cardKey)
        #expect(fixture.refusal(of: body) == .sealedWithoutRedactedCreation)
    }

    @Test func aCardSealedForAnotherHourThanItsShareExpiresIsRefused() throws {
        let fixture = try Fixture()
        let creation = Self.redactedCreation()
        let hour = fixture.keyring.hour + 5
        let body = RelayEnvelope.sealed(
            redactedEvent: EventCodec.encode(creation), card: [0], hour: hour, cardKey: try #require(fixture.keyring.cardKey(forHour: hour)))
        #expect(fixture.refusal(of: body) == .sealedForOtherHour(hour))
    }

    @Test func aLiveCardBeyondTheKeyWindowIsRefusedWithItsHours() throws {
        let fixture = try Fixture()
        let days = StreamKey.windowHours / 24 + 2
        let far = RelayReplica.now.advanced(by: .seconds(days * 86_400))
        guard case .shareCreated(let created) = Self.redactedCreation(expiresAt: far).kind else { return }
        let event = Event(id: EventID(origin: Self.origin, counter: 3), kind: .shareCreated(
            ShareCreated(recordName: created.recordName, vCard: SampleCard.make(index: 2), createdAt: RelayReplica.now, expiresAt: far)))
        do {
            let message = try fixture.codec.message(for: event, cardIsLive: true)
            Issue.record("the codec sealed \(message.subject)")
        } catch {
            guard case .cardBeyondKeyWindow(let hour, let keyHour) = error else {
                Issue.record("the codec failed with \(error), not cardBeyondKeyWindow")
                return
            }
            #expect(hour == StreamKey.hour(atMilliseconds: far.milliseconds))
            #expect(keyHour == fixture.keyring.hour)
        }
    }
}
