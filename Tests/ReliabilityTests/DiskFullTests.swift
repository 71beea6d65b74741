import Foundation
import Glibc
import LMDB
import TestSupport
import Testing
@testable import ShareLog

/// A store on a file system that fills up: the failing create throws a clear
/// error (`ENOSPC`, or `EIO` for a write the full disk cut short, both
/// saying to free disk space) and writes nothing, every share acknowledged before is still
/// there (through the same handle and after reopening), `verify` passes, and
/// writes succeed again once space is freed.
///
/// The file system is a 2 MiB tmpfs mounted for the test; where mounting is
/// not allowed (not root, or a container without the capability) the test
/// prints why and passes without checking.
@Suite struct DiskFullTests {
    /// A tmpfs of `size` mounted on a fresh directory, unmounted on `unmount()`.
    struct SmallFileSystem {
        let directory: TemporaryDirectory

        init?(size: String) {
            directory = TemporaryDirectory("DiskFull")
            let mounted = try? ExternalCommand.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", directory.path])
            guard let mounted, mounted.status == 0 else {
                print("DiskFullTests: skipped, cannot mount a tmpfs here: \(mounted?.error ?? "mount is missing")")
                return nil
            }
        }

        /// Detaches the file system at once; the kernel frees it when the
        /// last file in it closes (lazy unmount), so a handle still closing
        /// cannot make this fail.
        func unmount() throws {
            let result = try ExternalCommand.run("/bin/umount", ["-l", directory.path])
            #expect(result.status == 0, "umount: \(result.error)")
        }
    }

    @Test func aFullDiskFailsClearlyAndKeepsWhatWasAcknowledged() throws {
        guard let fileSystem = SmallFileSystem(size: "2m") else { return }
        defer { try? fileSystem.unmount() }
        let path = fileSystem.directory.appending("store")
        let filler = fileSystem.directory.appending("filler")
        // Most of the space goes to a file the test deletes later to free it.
        try Data(count: 768 << 10).write(to: URL(fileURLWithPath: filler))

        let acknowledged = try fillUntilFull(path)
        #expect(acknowledged.count > 10)
        try expectEveryShare(acknowledged, at: path)

        try FileManager.default.removeItem(atPath: filler)
        let store = try ShareStore.open(at: path)
        let later = try store.create(vCard: SampleCard.make(index: 1, photoBytes: 2000)).recordName
        #expect(try store.share(later).recordName == later)
        #expect(try store.verify().isConsistent)
    }

    /// Creates durable shares until the disk is full; checks the failure and
    /// that the same handle still reads every acknowledged share.
    func fillUntilFull(_ path: String) throws -> [RecordName: [UInt8]] {
        let store = try ShareStore.create(at: path).store
        var acknowledged: [RecordName: [UInt8]] = [:]
        for index in 0..<2000 {
            let card = SampleCard.make(index: index, photoBytes: 2000)
            do {
                acknowledged[try store.create(vCard: card).recordName] = card
            } catch let error as LMDBError {
                // ENOSPC when the disk refuses a whole write; EIO when it cuts one short.
                #expect(error.code == ENOSPC || error.code == EIO, "\(error)")
                #expect(error.description.contains("free disk space"), "\(error)")
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
