import CrashHarness
import Foundation
import LMDB
import SampleCards
import TestSupport
import Testing
@testable import ShareLog
import TestTraits

/// Map growth on a full disk: a create that fills the map grows it and then
/// finds no disk space for its pages. It throws the typed out-of-space
/// error and writes nothing; every share acknowledged before is still there
/// with its exact card, `verify` passes, through the same handle and after
/// reopening; once space is freed the same create succeeds.
///
/// The store lives on a 4 MiB tmpfs (`SmallFileSystem`; skipped with the
/// reason where it cannot be mounted, failed when root cannot mount it).
@Suite(.needsSmallFileSystem, .hangDeadline)
struct DiskFullGrowthTests {
    static let start = Timestamp(milliseconds: ReliabilityStore.start)
    static let initialMap = 256 << 10

    @Test func aCreateThatGrowsTheMapOnAFullDiskFailsClearlyAndWritesNothing() throws {
        let fileSystem = try SmallFileSystem(size: 4 << 20)
        let path = fileSystem.appending("store")
        var options = ShareStore.Options()
        options.clock = FixedClock(Self.start)
        options.environment.mapSize = Self.initialMap
        // About 170 KiB of pages (the card is in the log and in the
        // projection): more than the map has left, less than a doubled map.
        let large = SampleCard.make(index: 9999, photoBytes: 64 << 10)

        var shares: [KnownShare] = []
        do {
            let store = try ShareStore.open(at: path, creatingIfMissing: true, options: options)
            // Fill most of the map without growing it.
            while try store.stats().usedBytes < Self.initialMap - (48 << 10) {
                shares.append(try KnownShare.create(
                    SampleCard.make(index: shares.count), ttl: .seconds(3600), now: Self.start, in: store))
            }
            try #require(try store.stats().mapBytes == Self.initialMap)
            try fileSystem.fill()

            let error = #expect(throws: ShareLogError.self) { try store.create(vCard: large, ttl: .seconds(3600)) }
            if let error { DiskFullCheck.expectOutOfSpace(error) }
            // The failing create is the one that grew the map, once.
            #expect(try store.stats().mapBytes == 2 * Self.initialMap)
            try Self.expect(shares, in: store)
        }
        let store = try ShareStore.open(at: path, options: options)
        try Self.expect(shares, in: store)

        try fileSystem.freeSpace()
        let added = try KnownShare.create(large, ttl: .seconds(3600), now: Self.start, in: store)
        #expect(try store.stats().mapBytes == 2 * Self.initialMap)
        try Self.expect(shares + [added], in: store)
    }

    /// Expects exactly `shares` in the store, each with its exact card.
    static func expect(_ shares: [KnownShare], in store: ShareStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let stats = try store.stats()
        #expect(stats.events == shares.count && stats.live == shares.count, sourceLocation: sourceLocation)
        try KnownShare.expect(shares, ended: [], in: store, sourceLocation: sourceLocation)
        let report = try store.verify()
        #expect(report.isConsistent, "\(report)", sourceLocation: sourceLocation)
    }
}
