import TestSupport
import ShareLog

/// One side of the main-to-main test: a store seeded with exactly 10,000
/// events, and the test's own record of what each share must read as.
///
/// 6,000 shares are created: the first 3,800 with a one-hour TTL and then
/// swept two hours later (3,800 TTL ends), the next 200 revoked, the last
/// 2,000 left live with seven days to go. 6,000 + 3,800 + 200 = 10,000.
struct ConvergenceSide {
    static let shares = 6_000
    static let swept = 0..<3_800
    static let revoked = 3_800..<4_000
    static let live = 4_000..<6_000
    static let events = shares + swept.count + revoked.count

    let label: String
    let cards: [[UInt8]]
    /// The record names, in the order of `cards`.
    let names: [String]

    /// Seeds the store at `path` with this side's history.
    init(_ label: String, at path: String) throws {
        self.label = label
        let cards = (0..<Self.shares).map { TestCard.make(label, $0) }
        self.cards = cards
        names = try SeedStore.build(at: path) { store in
            let short = try SeedStore.create(Array(cards[Self.swept]), ttl: .seconds(3600), in: store)
            let long = try SeedStore.create(Array(cards[Self.swept.upperBound...]), in: store)
            for name in long.prefix(Self.revoked.count) { try store.revoke(name) }
            let sweep = try store.sweep(at: SeedStore.createdAt.advanced(by: .seconds(2 * 3600)))
            guard sweep.expired == Self.swept.count else {
                throw HarnessFailure.unexpected("the seeding sweep ended \(sweep.expired) shares, not \(Self.swept.count)")
            }
            return short + long
        }.map { "\($0)" }
    }

    /// What `share get ID --json` must say about share `index` at
    /// `SyncIntegrationTests.now`: its status, and for an ended one when
    /// and why.
    func expected(_ index: Int) -> (status: String, expiredAt: String?, reason: String?) {
        if Self.swept.contains(index) { return ("expired", "2026-12-01T11:00:00.000Z", "ttl") }
        if Self.revoked.contains(index) { return ("expired", "2026-12-01T10:00:00.000Z", "revoked") }
        return ("live", nil, nil)
    }
}
