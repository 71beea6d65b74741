import Foundation
import ShareLog

/// How the harness opens its stores, and what it reads of their files.
///
/// Every process (the parent making and checking a store, each writer)
/// opens with a map of `initialMapBytes`. LMDB raises a map set that small to
/// the data already written, so each writer starts with a nearly full map and
/// doubles it as it writes: map growth happens inside the writers, while
/// they are being killed.
public enum CrashStore {
    /// The map every process starts with: 16 KiB, four pages of 4 KiB, the
    /// least a new store accepts (the transaction that creates its seven
    /// databases at open does not grow the map; with 12 KiB it fails).
    public static let initialMapBytes = 16 << 10

    /// Durable default options with the small map and `clock`.
    public static func options(clock: any WallClock) -> ShareStore.Options {
        var options = ShareStore.Options()
        options.clock = clock
        options.environment.mapSize = initialMapBytes
        return options
    }

    /// The map size recorded in the newer of `data.mdb`'s two meta pages, read
    /// straight from the file (LMDB's layout: a 16-byte page header, then
    /// `mm_magic` 0xBEEFC0DE at 16, `mm_mapsize` at 32, the free list's
    /// `md_pad`, which holds the page size, at 40, and `mm_txnid` at 144).
    ///
    /// LMDB writes the larger of the previous meta's map size and the
    /// committing process's map, so this is the largest map any process had
    /// when it committed. It rises only when a process grew its map past
    /// every earlier one (a growth that stays below that is not counted).
    ///
    /// - Throws: `CrashViolation` when the file cannot be read or its first
    ///   pages are not LMDB meta pages.
    public static func committedMapBytes(at path: String) throws(CrashViolation) -> Int {
        let file = (path as NSString).appendingPathComponent("data.mdb")
        guard let handle = FileHandle(forReadingAtPath: file) else { throw CrashViolation("cannot open \(file)") }
        defer { try? handle.close() }
        func page(at offset: UInt64, size: Int) throws(CrashViolation) -> [UInt8] {
            let bytes: [UInt8]
            do {
                try handle.seek(toOffset: offset)
                bytes = [UInt8](try handle.read(upToCount: size) ?? Data())
            } catch {
                throw CrashViolation("cannot read \(file) at \(offset): \(error)")
            }
            guard bytes.count == size, integer(bytes, at: 16, size: 4) == 0xBEEF_C0DE else {
                throw CrashViolation("\(file) has no LMDB meta page at offset \(offset)")
            }
            return bytes
        }
        let first = try page(at: 0, size: 152)
        let pageSize = integer(first, at: 40, size: 4)
        let second = try page(at: pageSize, size: 152)
        let newer = integer(second, at: 144, size: 8) > integer(first, at: 144, size: 8) ? second : first
        return Int(integer(newer, at: 32, size: 8))
    }

    /// The little-endian integer of `size` bytes at `offset`.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        bytes[offset..<offset + size].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
