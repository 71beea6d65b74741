import CrashHarness
import Foundation
import LMDB
import SampleCards
import TestSupport
import Testing
@testable import ShareLog
import TestTraits

/// A sweep that runs out of disk space: it throws the typed out-of-space
/// error, commits whole batches or nothing (each share is either expired by
/// a committed batch, in expiry order, or still live with its exact card;
/// the counters and the log agree), `verify` passes through the same handle
/// and after reopening on the still full disk, and the sweep finishes once
/// space is freed.
///
/// The store lives on a 4 MiB tmpfs (`SmallFileSystem`; skipped with the
/// reason where it cannot be mounted, failed when root cannot mount it); a
/// filler file takes the rest of the space, so the sweep's own pages are
/// what no longer fit. The map is filled first (`MapFiller`): the LMDB
/// module preallocates the map, so only a write that needs it to grow can
/// meet the full disk. With no headroom the first batch fails; with room
/// for a batch or two (24 pages of 4 KiB: in format 2 a batch of TTL ends
/// touches only the ends of a few B-trees, a handful of pages, and a
/// reader from before the sweep keeps batches from reusing each other's
/// freed pages) some batches commit before one fails.
@Suite(.needsSmallFileSystem, .hangDeadline, .ownThread)
struct DiskFullSweepTests {
    static let start = Timestamp(milliseconds: ReliabilityStore.start)
    /// Shares 0..<due expire before `sweepTime`; the others live on.
    static let shareCount = 400, due = 200
    /// Half a second after share `due - 1` expires, before share `due` does.
    static let sweepTime = start.advanced(by: .seconds(60 + due - 1) + .milliseconds(500))

    @Test(arguments: [0, 96 << 10])
    func aSweepOnAFullDiskFailsClearlyAndCommitsWholeBatchesOnly(headroom: Int) throws {
        let fileSystem = try SmallFileSystem(size: 4 << 20)
        let path = fileSystem.appending("store")
        let clock = SteppedClock(Self.start.milliseconds)
        var options = ShareStore.Options()
        options.clock = clock

        var shares: [KnownShare] = []
        var ended = Set<RecordName>()
        do {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
            // Share i lives 60 + i seconds: expiry order is creation order.
            for index in 0..<Self.shareCount {
                shares.append(try KnownShare.create(
                    SampleCard.make(index: index), ttl: .seconds(60 + index), now: Self.start, in: store))
            }
            // Live an hour, past the sweep: the map full, so the sweep's
            // pages need it to grow onto the full disk.
            shares += try MapFiller.fill(store, leaving: 8 << 10, firstIndex: Self.shareCount, ttl: .seconds(3600), now: Self.start)
            let pin = SnapshotPin()
            try pin.hold(store.path)
            defer { pin.release() }
            try fileSystem.fill(leaving: headroom)
            clock.set(Self.sweepTime.milliseconds)

            var committed = 0
            let error = #expect(throws: ShareLogError.self) {
                try store.sweep(batchSize: 50) { committed = $0.expired }
            }
            if let error { DiskFullCheck.expectOutOfSpace(error) }
            if headroom > 0 { #expect(committed > 0, "the headroom fits no batch: the test's sizes need adjusting") }
            // Whole batches, in expiry order: shares 0..<committed ended, no other.
            ended = Set(shares.prefix(committed).map(\.name))
            try Self.expect(shares, ended: ended, in: store)
        }
        // Reopened on the still full disk.
        let store = try ShareStore.open(at: path, options: options)
        try Self.expect(shares, ended: ended, in: store)

        try fileSystem.freeSpace()
        let report = try store.sweep(batchSize: 50)
        #expect(report.expired == Self.due - ended.count)
        try Self.expect(shares, ended: Set(shares.prefix(Self.due).map(\.name)), in: store)
    }

    /// Expects exactly the shares in `ended` swept, by every account: each
    /// share's fetch, the counters, the log, and `verify`.
    static func expect(
        _ shares: [KnownShare], ended: Set<RecordName>, in store: ShareStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try KnownShare.expect(shares, ended: ended, in: store, sourceLocation: sourceLocation)
        let stats = try store.stats(at: sweepTime)
        #expect(stats.events == shares.count + ended.count, sourceLocation: sourceLocation)
        #expect(stats.expired == ended.count, sourceLocation: sourceLocation)
        #expect(stats.live == shares.count - ended.count, sourceLocation: sourceLocation)
        #expect(stats.due == due - ended.count, sourceLocation: sourceLocation)
        #expect(stats.pendingRedactions == ended.count, sourceLocation: sourceLocation)
        let expiredInLog = try store.events(after: 0, limit: .max, maxBytes: .max).compactMap { logged -> RecordName? in
            guard case .shareExpired(let expired) = logged.event.kind else { return nil }
            return expired.recordName
        }
        #expect(Set(expiredInLog) == ended && expiredInLog.count == ended.count, sourceLocation: sourceLocation)
        let report = try store.verify()
        #expect(report.isConsistent, "\(report)", sourceLocation: sourceLocation)
    }
}
