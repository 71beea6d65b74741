import Foundation
import Glibc
import LMDB
import SharePrimitives

/// The `high-water` file beside `data.mdb` (docs/FORMAT.md "The high-water
/// file"): the epoch, and the highest log position of that epoch that may
/// have left the store, recorded durably before it leaves. `data.mdb`
/// overwritten in place with an older copy ends before that position, and
/// the store renews its identity when it opens (docs/SYNC.md "Identity").
///
/// Two 512-byte slots, each in a sector of its own: a write goes to the
/// slot that does not hold the current record, in place, so a torn write
/// leaves the previous record whole, and the directory (whose ctime the
/// home check reads) is never touched after the file is created.
/// Callers hold the file's lock (`locked`) for a read and the write that
/// follows it, across processes.
struct HighWaterFile {
    static let name = "high-water"
    static let slotSize = 512
    static let recordSize = 44
    static let magic = Array("SLHW".utf8)
    static let version: UInt32 = 1

    /// One slot's contents.
    struct Record: Equatable {
        /// Which write this was: the valid slot with the larger one is current.
        var sequence: UInt64
        /// The epoch `position` belongs to; nil (16 zero bytes) in the record
        /// a new file starts with, before its store's open recorded one.
        var epoch: Epoch?
        /// The highest log position of `epoch` that may have left the store.
        var position: UInt64
    }

    /// What the file says.
    enum Contents: Equatable {
        /// The current record.
        case record(Record)
        /// No slot holds a valid record: damaged, or written by a build
        /// that knows another version of it.
        case unreadable
    }

    let path: String
    let durable: Bool
    private let descriptor: Int32

    static func path(in directory: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }

    static func exists(in directory: String) -> Bool {
        FileStatus.size(atPath: path(in: directory)) != nil
    }

    /// Makes the file with a record that names no epoch yet: written to a
    /// temporary file, synced, and renamed into place, so the name never
    /// holds a partial file; `StoreSidecars` syncs the directory after.
    /// This changes the directory's ctime: the open records its home after
    /// it.
    static func create(in directory: String, durable: Bool) throws {
        let final = path(in: directory), temporary = final + ".tmp"
        var bytes = [UInt8](repeating: 0, count: 2 * slotSize)
        bytes.replaceSubrange(0..<recordSize, with: encode(Record(sequence: 1, epoch: nil, position: 0)))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreSidecars.failure("creating \(temporary)") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw StoreSidecars.failure("writing \(temporary)", written: written) }
        if durable, fsync(descriptor) != 0 { throw StoreSidecars.failure("syncing \(temporary)") }
        guard rename(temporary, final) == 0 else { throw StoreSidecars.failure("renaming \(temporary)") }
    }

    /// Opens the file and takes its lock (`flock`, exclusive: other
    /// processes and other descriptors in this one wait) for `body`.
    static func locked<R>(in directory: String, durable: Bool, _ body: (HighWaterFile) throws -> R) throws -> R {
        let file = path(in: directory)
        let descriptor = open(file, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreSidecars.failure("opening \(file)") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StoreSidecars.failure("locking \(file)") }
        }
        // Unlocked before the close, so a child another thread forks
        // meanwhile cannot hold the lock until its exec (`MaintenanceLock`).
        defer { flock(descriptor, LOCK_UN) }
        return try body(HighWaterFile(path: file, durable: durable, descriptor: descriptor))
    }

    /// The current record, and the slot it is in.
    func read() throws -> (contents: Contents, slot: Int?) {
        var current: (record: Record, slot: Int)?
        for slot in 0..<2 {
            var bytes = [UInt8](repeating: 0, count: Self.recordSize)
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, Self.recordSize, off_t(slot * Self.slotSize)) }
            guard count >= 0 else { throw StoreSidecars.failure("reading \(path)") }
            guard count == Self.recordSize, let record = Self.decode(bytes) else { continue }
            if current.map({ record.sequence > $0.record.sequence }) ?? true { current = (record, slot) }
        }
        guard let current else { return (.unreadable, nil) }
        return (.record(current.record), current.slot)
    }

    /// Writes `epoch` and `position` into the slot that does not hold the
    /// current record (`read()`'s), then syncs the file when durable.
    /// Returns the record written.
    @discardableResult
    func write(epoch: Epoch, position: UInt64) throws -> Record {
        let (contents, slot) = try read()
        var sequence: UInt64 = 1
        if case .record(let record) = contents { sequence = record.sequence &+ 1 }
        let record = Record(sequence: sequence, epoch: epoch, position: position)
        let target = slot.map { 1 - $0 } ?? 0
        let bytes = Self.encode(record)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(target * Self.slotSize)) }
        guard written == bytes.count else { throw StoreSidecars.failure("writing \(path)", written: written) }
        if durable, fdatasync(descriptor) != 0 { throw StoreSidecars.failure("syncing \(path)") }
        return record
    }

    /// magic "SLHW" ‖ version u32 ‖ sequence u64 ‖ epoch (16) ‖ position u64
    /// ‖ CRC-32 of the 40 bytes before it; big-endian.
    static func encode(_ record: Record) -> [UInt8] {
        var bytes = magic + Key.bigEndian(version) + Key.bigEndian(record.sequence)
        bytes += record.epoch?.bytes ?? [UInt8](repeating: 0, count: 16)
        bytes += Key.bigEndian(record.position)
        return bytes + Key.bigEndian(bytes.withUnsafeBytes { CRC32.of($0) })
    }

    /// A slot's record; nil unless its magic, version and checksum hold.
    static func decode(_ bytes: [UInt8]) -> Record? {
        guard bytes.count == recordSize, Array(bytes[0..<4]) == magic else { return nil }
        return bytes.withUnsafeBytes { raw -> Record? in
            func integer<T: FixedWidthInteger>(_ range: Range<Int>, as: T.Type) -> T? {
                Key.integer(UnsafeRawBufferPointer(rebasing: raw[range]), as: T.self)
            }
            guard integer(4..<8, as: UInt32.self) == version,
                  integer(40..<44, as: UInt32.self) == CRC32.of(UnsafeRawBufferPointer(rebasing: raw[0..<40])),
                  let sequence = integer(8..<16, as: UInt64.self), let position = integer(32..<40, as: UInt64.self)
            else { return nil }
            let epoch = bytes[16..<32].allSatisfy { $0 == 0 } ? nil : Epoch(bytes: bytes[16..<32])
            return Record(sequence: sequence, epoch: epoch, position: position)
        }
    }
}
