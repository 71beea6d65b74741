import Foundation
import Glibc
import LMDB
import SampleCards
import TestSupport
import Testing
@testable import ShareLog
import TestTraits

/// A store on a file system that fills up: the failing create throws a clear
/// error (`ENOSPC`, or `EIO` for a write the full disk cut short, both
/// saying to free disk space) and writes nothing, every share acknowledged before is still
/// there (through the same handle and after reopening), `verify` passes, and
/// writes succeed again once space is freed.
///
/// The file system is a 2 MiB tmpfs mounted for the test (`SmallFileSystem`).
/// Where mounting is not allowed (not root, and a trial mount fails) the
/// test is reported as skipped with the reason. As root, as in CI, it always
/// runs, and a mount that fails fails it: the environment is broken then,
/// and a skip would hide that the disk-full paths went unchecked.
@Suite(.needsSmallFileSystem, .hangDeadline)
struct DiskFullTests {
    @Test func aFullDiskFailsClearlyAndKeepsWhatWasAcknowledged() throws {
        let fileSystem = try SmallFileSystem(size: 2 << 20)
        let path = fileSystem.appending("store")
        // Most of the space goes to a file the test deletes later to free it.
        try fileSystem.fill(leaving: 1280 << 10)

        let acknowledged = try fillUntilFull(path)
        #expect(acknowledged.count > 10)
        try expectEveryShare(acknowledged, at: path)

        try fileSystem.freeSpace()
        let store = try ShareStore.open(at: path)
        let laterCard = SampleCard.make(index: 1, photoBytes: 2000)
        let later = try store.create(vCard: laterCard).recordName
        #expect(try store.share(later).vCard == laterCard)
        #expect(try store.verify().isConsistent)
    }

    /// Creates durable shares until the disk is full; checks the failure and
    /// that the same handle still reads every acknowledged share.
    func fillUntilFull(_ path: String) throws -> [RecordName: [UInt8]] {
        let store = try ShareStore.open(at: path, creatingIfMissing: true)
        var acknowledged: [RecordName: [UInt8]] = [:]
        for index in 0..<2000 {
            let card = SampleCard.make(index: index, photoBytes: 2000)
            do {
                acknowledged[try store.create(vCard: card).recordName] = card
            } catch {
                DiskFullCheck.expectOutOfSpace(error)
                #expect(try store.stats().events == acknowledged.count)
                for (name, card) in acknowledged { #expect(try store.share(name).vCard == card) }
                return acknowledged
            }
        }
        Issue.record("2,000 shares of 4 KiB fitted in a 2 MiB file system")
        return acknowledged
    }

    /// Reopens the store, still on the full disk, and reads every share.
    func expectEveryShare(_ acknowledged: [RecordName: [UInt8]], at path: String) throws {
        let store = try ShareStore.open(at: path)
        #expect(try store.stats().events == acknowledged.count)
        for (name, card) in acknowledged { #expect(try store.share(name).vCard == card) }
        #expect(try store.verify().isConsistent)
    }
}
