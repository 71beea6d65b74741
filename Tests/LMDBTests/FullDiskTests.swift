import Foundation
import Glibc
import TestSupport
import Testing
@testable import LMDB
import TestTraits

/// With `MDB_WRITEMAP` a write goes straight into the map, and a page the
/// disk has no block for would be SIGBUS. Every write transaction first
/// gives the whole map its disk blocks: on a full disk, a write that fits in
/// the allocated map succeeds, one that needs the map to grow fails with
/// `ENOSPC` and writes nothing, and one that finds room for part of the
/// grown map shrinks it to that part and succeeds.
///
/// On a 4 MiB tmpfs; only as root (mounting needs CAP_SYS_ADMIN).
@Suite(.enabled(if: TinyDisk.mayMount, "mounting a tmpfs needs root"), .hangDeadline)
struct FullDiskTests {
    static func options() -> Environment.Options {
        var options = Environment.Options()
        options.mapSize = 1 << 20
        return options
    }

    /// `count` values of one overflow page each (4,000 bytes), keys from `first`.
    static func put(_ count: Int, from first: Int, in env: Environment, _ data: Database) throws {
        try env.write { txn in
            for number in first..<first + count {
                try txn.put([UInt8](repeating: UInt8(number % 251), count: 4000), forKey: key(UInt64(number)), in: data)
            }
        }
    }

    /// True when the disk has a block for every byte of `data.mdb`.
    static func isFullyAllocated(_ disk: TinyDisk) -> Bool {
        var info = stat()
        guard stat(disk.appending("store/data.mdb"), &info) == 0 else { return false }
        return Int(info.st_blocks) * 512 >= Int(info.st_size)
    }

    /// The writer grows the map ahead of a batch like the last one
    /// (`MapRunway`), but never into a nearly full disk's last bytes: a
    /// batch that fits the map commits there and leaves them free.
    @Test func aGrowthAheadLeavesANearlyFullDisksLastBytesAlone() throws {
        let disk = try TinyDisk(size: 4 << 20)
        let env = try Environment.open(at: disk.appending("store"), databases: ["data"], options: Self.options())
        let data = try env.database("data")
        // About 100 pages of the 256 in the 1 MiB map: the next batch like
        // it would want the map doubled, which takes 1 MiB more disk.
        try Self.put(100, from: 0, in: env, data)
        try disk.fill(leaving: 512 << 10)
        try Self.put(60, from: 100, in: env, data)
        #expect(try env.read { txn in try txn.count(in: data) } == 160)
        #expect(disk.freeBytes >= 480 << 10, "\(disk.freeBytes) bytes left free")
    }

    @Test func onAFullDiskAWriteThatFitsTheMapSucceedsAndOneThatNeedsMoreWritesNothing() throws {
        let disk = try TinyDisk(size: 4 << 20)
        let env = try Environment.open(at: disk.appending("store"), databases: ["data"], options: Self.options())
        let data = try env.database("data")
        try Self.put(10, from: 0, in: env, data)
        try disk.fill()

        // 20 pages fit in the 1 MiB map, whose blocks the disk already gave.
        try Self.put(20, from: 10, in: env, data)
        #expect(try env.read { txn in try txn.count(in: data) } == 30)

        // 300 pages do not: the map must grow, and the disk has no room.
        let error = #expect(throws: LMDBError.self) { try Self.put(300, from: 30, in: env, data) }
        #expect(error?.code == ENOSPC)
        #expect(error?.description.contains("free disk space") == true)
        #expect(try env.read { txn in try txn.count(in: data) } == 30)
        #expect(Self.isFullyAllocated(disk) == false, "the grown map's new part has no blocks yet")

        try disk.freeSpace()
        try Self.put(300, from: 30, in: env, data)
        #expect(try env.read { txn in try txn.count(in: data) } == 330)
        #expect(env.info.mapSize == 2 << 20)
        #expect(Self.isFullyAllocated(disk))
    }

    @Test func onANearlyFullDiskTheMapShrinksToWhatFitsAndTheWriteSucceeds() throws {
        let disk = try TinyDisk(size: 4 << 20)
        let env = try Environment.open(at: disk.appending("store"), databases: ["data"], options: Self.options())
        let data = try env.database("data")
        try Self.put(200, from: 0, in: env, data)
        // Room for 512 KiB more, not for the 1 MiB a doubled map needs.
        try disk.fill(leaving: 512 << 10)

        try Self.put(100, from: 200, in: env, data)

        #expect(try env.read { txn in try txn.count(in: data) } == 300)
        #expect(Self.isFullyAllocated(disk))
        let map = env.info.mapSize
        #expect(map > 1 << 20 && map < 2 << 20, "a map between the old one and a doubled one: \(map)")
    }
}
