import Foundation
import SampleCards
import ShareHTTP
import ShareLog
import TestSupport

/// A real `ShareStore` in a temporary directory holding one share of each
/// kind the gateway tells apart. Every time is written out by hand, relative
/// to `now` = 1_800_000_000_000 ms = Fri, 15 Jan 2027 08:00:00 UTC:
///
/// - `live`: created at 08:00:00 with a 120 s TTL, so it ends at 08:02:00.
/// - `expired`: created at 07:00:00 with a 60 s TTL: ended at 07:01:00 (ttl), never swept.
/// - `revoked`: created at 07:30:00 with a day's TTL, revoked at 07:45:00.
/// - `unknown`: a well-formed id no share has.
///
/// Keep the fixture alive for the whole test: its directory goes with it.
struct GatewayFixture {
    static let now = Timestamp(milliseconds: 1_800_000_000_000)
    static let sevenAM = Timestamp(milliseconds: 1_799_996_400_000)
    static let sevenThirty = Timestamp(milliseconds: 1_799_998_200_000)
    static let sevenFortyFive = Timestamp(milliseconds: 1_799_999_100_000)
    static let unknown = RecordName(uuid: UUID(uuidString: "0badc0de-1111-4222-8333-444444444444")!)

    static let clipID = "ABCDE12345.com.example.cards.Clip"
    static let appID = "ABCDE12345.com.example.cards"
    static let appStoreID = "1234567890"

    let directory: TemporaryDirectory
    let storeClock: SettableClock
    let store: ShareStore
    let liveCard = SampleCard.make(index: 7)
    let live: CreatedShare
    let expired: CreatedShare
    let revoked: CreatedShare

    init(label: String = #function) throws {
        directory = TemporaryDirectory(label)
        storeClock = SettableClock(Self.sevenAM)
        var options = ShareStore.Options()
        options.clock = storeClock
        options.environment.durability = .noSync
        store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true, options: options)
        expired = try store.create(vCard: SampleCard.make(index: 1), ttl: .seconds(60))
        storeClock.set(Self.sevenThirty)
        revoked = try store.create(vCard: SampleCard.make(index: 2), ttl: .seconds(86_400))
        storeClock.set(Self.sevenFortyFive)
        try store.revoke(revoked.recordName)
        storeClock.set(Self.now)
        live = try store.create(vCard: liveCard, ttl: .seconds(120))
    }

    /// Adds a share of `card` created at `createdAt` (default `now`).
    func add(_ card: [UInt8], ttl: Duration = .seconds(7 * 86_400), createdAt: Timestamp = Self.now) throws -> CreatedShare {
        storeClock.set(createdAt)
        defer { storeClock.set(Self.now) }
        return try store.create(vCard: card, ttl: ttl)
    }

    /// A gateway over the store with both kinds of app id and an App Store
    /// id, answering at `clock` (default: fixed at `now`).
    func gateway(clock: any WallClock = FixedClock(now), _ configure: (inout GatewayConfiguration) -> Void = { _ in }) throws -> Gateway {
        var configuration = GatewayConfiguration()
        configuration.clipAppIDs = [try AppIdentifier(Self.clipID)]
        configuration.fullAppIDs = [try AppIdentifier(Self.appID)]
        configuration.appStoreID = Self.appStoreID
        configure(&configuration)
        return Gateway(source: store, configuration: configuration, clock: clock, limitClock: clock)
    }

    /// A fresh, empty store, as an App Clip starts with.
    func clipStore(_ name: String = "clip") throws -> ShareStore {
        var options = ShareStore.Options()
        options.clock = FixedClock(Self.now)
        options.environment.durability = .noSync
        return try ShareStore.open(at: directory.appending(name), creatingIfMissing: true, options: options)
    }
}
