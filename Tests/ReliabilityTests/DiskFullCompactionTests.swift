import CrashHarness
import Dispatch
import Foundation
import LMDB
import SampleCards
import TestSupport
import Testing
@testable import ShareLog
import TestTraits

/// Compaction and its closing scrub on a full disk.
///
/// - A compaction whose redactions need new pages throws the typed
///   out-of-space error and redacts whole batches or nothing: each expired
///   share's log entry still holds its exact card unless a committed batch
///   redacted it, live shares keep theirs, `verify` passes through the same
///   handle and after reopening, and the compaction finishes, scrub
///   included, once space is freed.
/// - Scrub itself cannot run out of space here: it only overwrites bytes
///   that are already on disk with zeros (it skips bytes already zero, so
///   it never fills a hole), which a file system that overwrites in place
///   (tmpfs, ext4) does without allocating. The test shows the consequence a
///   user relies on: on a disk with no byte free, a compaction whose
///   redactions fit in freed pages still scrubs, and no byte of an expired
///   card is left in `data.mdb`. (A copy-on-write file system could refuse
///   the scrub's writes; none can be made here.)
///
/// Stores live on a tmpfs (`SmallFileSystem`; skipped with the reason where
/// it cannot be mounted, failed when root cannot mount it).
@Suite(.needsSmallFileSystem, .hangDeadline, .ownThread)
struct DiskFullCompactionTests {
    static let start = Timestamp(milliseconds: ReliabilityStore.start)
    /// Shares 0..<expiring live 60 + i seconds, the others an hour.
    static let shareCount = 160, expiring = 80
    static let sweepTime = start.advanced(by: .seconds(600))

    /// A store on `fileSystem` holding `shareCount` shares with photos (on
    /// overflow pages), the first `expiring` of them swept at `sweepTime`.
    struct SweptStore {
        let store: ShareStore
        let options: ShareStore.Options
        let shares: [KnownShare]
        var expired: ArraySlice<KnownShare> { shares.prefix(expiring) }
        var live: ArraySlice<KnownShare> { shares.dropFirst(expiring) }

        /// - Parameter beforeSweep: runs after the creates, before the sweep.
        init(on fileSystem: SmallFileSystem, beforeSweep: (ShareStore) throws -> Void = { _ in }) throws {
            var options = ShareStore.Options()
            options.clock = FixedClock(start)
            let store = try ShareStore.open(at: fileSystem.appending("store"), creatingIfMissing: true, options: options)
            shares = try (0..<shareCount).map { index in
                try KnownShare.create(
                    SampleCard.make(index: index, photoBytes: 3000), ttl: .seconds(index < expiring ? 60 + index : 3600),
                    now: start, in: store)
            }
            try beforeSweep(store)
            #expect(try store.sweep(at: sweepTime).expired == expiring)
            self.store = store
            self.options = options
        }
    }

    /// With no headroom the first batch fails (or the first few, in what
    /// the filled map had left); with room for about one more batch (a
    /// batch of 20 redactions takes a few pages of 4 KiB) one commits
    /// before a later one fails.
    @Test(arguments: [0, 16 << 10])
    func aCompactionOnAFullDiskFailsClearlyAndRedactsWholeBatchesOnly(headroom: Int) throws {
        let fileSystem = try SmallFileSystem(size: 8 << 20)
        let path = fileSystem.appending("store")
        let shares: [KnownShare], options: ShareStore.Options
        var redacted = 0
        do {
            let swept = try SweptStore(on: fileSystem)
            // Live an hour, past the sweep: the map full, so the compaction's
            // pages need it to grow onto the full disk (the LMDB module
            // preallocates the map; `MapFiller`). Filled before the pin, so
            // each create reuses freed pages and the map fills page by page.
            shares = swept.shares + (try MapFiller.fill(
                swept.store, leaving: 8 << 10, firstIndex: Self.shareCount, ttl: .seconds(3600), now: Self.start))
            // A reader from before the compaction keeps every page it frees
            // from being reused, so its pages must come from the full disk.
            let pin = SnapshotPin()
            try pin.hold(swept.store.path)
            defer { pin.release() }
            options = swept.options
            try fileSystem.fill(leaving: headroom)

            let error = #expect(throws: ShareLogError.self) {
                try swept.store.compact(batchSize: 20) { redacted = $0.redacted }
            }
            if let error { DiskFullCheck.expectOutOfSpace(error) }
            if headroom > 0 { #expect(redacted > 0, "the headroom fits no batch: the test's sizes need adjusting") }
            // Whole batches, in log order: the first `redacted` expired shares.
            try Self.expect(swept.store, shares: shares, redacted: redacted)
        }
        // Reopened on the still full disk, with no reader left.
        let store = try ShareStore.open(at: path, options: options)
        try Self.expect(store, shares: shares, redacted: redacted)

        try fileSystem.freeSpace()
        let report = try store.compact(batchSize: 20)
        #expect(report.redacted == Self.expiring - redacted)
        try Self.expect(store, shares: shares, redacted: Self.expiring)
        try Self.expectNoExpiredCard(in: path, shares: shares)
    }

    @Test func aScrubNeedsNoFreeSpaceAndLeavesNoExpiredCard() throws {
        let fileSystem = try SmallFileSystem(size: 8 << 20)
        let swept = try SweptStore(on: fileSystem)
        // LMDB reuses a page freed by transaction T from T + 2 on: one more
        // commit makes the pages the sweep freed (the expired cards in the
        // projection) reusable by the compaction.
        let extra = try KnownShare.create(SampleCard.make(index: 1000), ttl: .seconds(3600), now: Self.start, in: swept.store)
        try fileSystem.fill()
        try #require(fileSystem.freeBytes == 0)

        let report = try swept.store.compact()
        #expect(report.redacted == Self.expiring)
        #expect(report.scrub?.freePagesDeferred == 0)
        // The compaction and its scrub ran with no byte free on the disk.
        #expect(fileSystem.freeBytes == 0)
        try Self.expect(swept.store, shares: swept.shares + [extra], redacted: Self.expiring)
        try Self.expectNoExpiredCard(in: swept.store.path, shares: swept.shares)
    }

    /// Expects the first `redacted` expired shares redacted and nothing else
    /// changed: the log's cards, each share's fetch, the counters, `verify`.
    static func expect(
        _ store: ShareStore, shares: [KnownShare], redacted: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let logged = try KnownShare.loggedCards(in: store)
        #expect(logged.count == shares.count, sourceLocation: sourceLocation)
        for (index, share) in shares.enumerated() {
            let expected: [UInt8]? = index < redacted ? nil : share.card
            #expect(logged[share.name] == .some(expected), "share \(index)", sourceLocation: sourceLocation)
        }
        try KnownShare.expect(shares, ended: Set(shares.prefix(expiring).map(\.name)), in: store, sourceLocation: sourceLocation)
        let stats = try store.stats(at: sweepTime)
        #expect(stats.events == shares.count + expiring, sourceLocation: sourceLocation)
        #expect(stats.expired == expiring && stats.live == shares.count - expiring, sourceLocation: sourceLocation)
        #expect(stats.pendingRedactions == expiring - redacted, sourceLocation: sourceLocation)
        let report = try store.verify()
        #expect(report.isConsistent, "\(report)", sourceLocation: sourceLocation)
    }

    /// Expects no expired share's card anywhere in `data.mdb`, and, so the
    /// search is known to work, every live share's. A card is found by its
    /// `FN` line, which names its index and ends with CRLF.
    static func expectNoExpiredCard(
        in path: String, shares: [KnownShare], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: (path as NSString).appendingPathComponent("data.mdb")))
        for (index, _) in shares.enumerated() {
            let found = file.range(of: Data("FN:Person Sample\(index)\r\n".utf8)) != nil
            #expect(found == (index >= expiring), "card \(index) in data.mdb: \(found)", sourceLocation: sourceLocation)
        }
    }
}
