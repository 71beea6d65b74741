import Foundation

/// What the power-cut shim (Tests/PowerCutShim) recorded of one writer
/// process, in the order the process did it.
///
/// The file: the magic `PCJ1`, the version (UInt32) and the sector size
/// (UInt32), then records, each a tag byte and little-endian fields:
///
/// | tag | record | fields |
/// |---|---|---|
/// | `S` | the sectors of the watched file that changed since the previous `S` | length UInt64, count UInt32, then count × (sector UInt64, the sector's bytes) |
/// | `B` | a sync's entry (after an `S` of the bytes at that moment) | kind UInt8, flags UInt32, offset UInt64, length UInt64 |
/// | `E` | that sync's return | errno UInt32, 0 on success |
/// | `D` | a sync the shim skipped on purpose (`SHARELOG_POWERCUT_DROP`) | as `B` |
/// | `W` | a write to the file returned (an `S` follows) | offset UInt64 (all ones for `write`), length UInt64 |
/// | `T` | a truncation or allocation returned (an `S` follows) | offset UInt64, length UInt64 |
/// | `L` | a line the writer printed (after an `S`) | length UInt32, bytes |
///
/// The first `B`/`E` pair is the baseline: the file as the writer found
/// it, which the parent had synced.
public struct PowerCutJournal: Sendable {
    /// What a sync record says was synced.
    public struct Sync: Sendable, Hashable {
        public enum Kind: UInt8, Sendable {
            case baseline = 0, msync, fsync, fdatasync, fileRange, syncfs, sync
        }

        public var kind: Kind
        public var flags: UInt32
        public var offset: UInt64
        /// `UInt64.max` for the whole file.
        public var length: UInt64

        public init(_ kind: Kind, flags: UInt32 = 0, offset: UInt64 = 0, length: UInt64 = .max) {
            self.kind = kind
            self.flags = flags
            self.offset = offset
            self.length = length
        }

        /// Linux's `MS_SYNC`; `MS_ASYNC` starts no writeback at all.
        static let msSync: UInt32 = 4

        /// Whether the bytes it covers are on disk once it returns:
        /// `sync_file_range` and `msync(MS_ASYNC)` promise nothing of the kind.
        public var isDurable: Bool {
            switch kind {
            case .fileRange: false
            case .msync: flags & Self.msSync != 0
            default: true
            }
        }

        /// The sectors it covers in a file of `length` bytes.
        func sectors(sectorSize: Int, fileLength: Int) -> Range<Int> {
            let end = length == .max ? UInt64(fileLength) : min(UInt64(fileLength), offset &+ length)
            let first = Int(offset) / sectorSize
            let last = (Int(end) + sectorSize - 1) / sectorSize
            return first..<max(first, last)
        }
    }

    /// One changed sector: its number and where its bytes are in `bytes`.
    public struct Change: Sendable, Hashable {
        public var sector: Int
        public var at: Int

        public init(sector: Int, at: Int) {
            self.sector = sector
            self.at = at
        }
    }

    public enum Record: Sendable, Hashable {
        case snapshot(length: Int, changes: [Change])
        case syncBegin(Sync)
        case syncEnd(errno: Int32)
        case dropped(Sync)
        case write(offset: UInt64, length: UInt64)
        case resize(offset: UInt64, length: UInt64)
        case line(String)
    }

    public let sectorSize: Int
    public let records: [Record]
    /// Every recorded sector's bytes, `sectorSize` each, where `Change.at` says.
    public let bytes: [UInt8]

    public init(sectorSize: Int, records: [Record], bytes: [UInt8]) {
        self.sectorSize = sectorSize
        self.records = records
        self.bytes = bytes
    }

    /// Reads the journal at `path`.
    ///
    /// - Throws: `CrashViolation` when it is missing, of another version,
    ///   or cut short inside a record.
    public init(contentsOf path: String) throws(CrashViolation) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CrashViolation("no power-cut journal at \(path): did the shim load (LD_PRELOAD)?")
        }
        var reader = Reader(bytes: [UInt8](data))
        guard try reader.take(4) == Array("PCJ1".utf8), try reader.u32() == 1 else {
            throw CrashViolation("\(path) is not a version-1 power-cut journal")
        }
        let sectorSize = Int(try reader.u32())
        var records: [Record] = []
        var pool: [UInt8] = []
        while !reader.atEnd {
            let tag = try reader.take(1)[0]
            switch Character(UnicodeScalar(tag)) {
            case "S":
                let length = Int(try reader.u64())
                let count = Int(try reader.u32())
                var changes: [Change] = []
                changes.reserveCapacity(count)
                for _ in 0..<count {
                    let sector = Int(try reader.u64())
                    changes.append(Change(sector: sector, at: pool.count))
                    pool += try reader.take(sectorSize)
                }
                records.append(.snapshot(length: length, changes: changes))
            case "B", "D":
                let raw = try reader.take(1)[0]
                guard let kind = Sync.Kind(rawValue: raw) else { throw CrashViolation("\(path): unknown sync kind \(raw)") }
                let sync = Sync(kind, flags: try reader.u32(), offset: try reader.u64(), length: try reader.u64())
                records.append(tag == UInt8(ascii: "B") ? .syncBegin(sync) : .dropped(sync))
            case "E":
                records.append(.syncEnd(errno: Int32(bitPattern: try reader.u32())))
            case "W", "T":
                let offset = try reader.u64(), length = try reader.u64()
                records.append(tag == UInt8(ascii: "W") ? .write(offset: offset, length: length) : .resize(offset: offset, length: length))
            case "L":
                let count = Int(try reader.u32())
                records.append(.line(String(decoding: try reader.take(count), as: UTF8.self)))
            default:
                throw CrashViolation("\(path): unknown record tag \(tag) at byte \(reader.offset - 1)")
            }
        }
        self.init(sectorSize: sectorSize, records: records, bytes: pool)
    }

    /// A cursor over the journal's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func take(_ count: Int) throws(CrashViolation) -> [UInt8] {
            guard count <= bytes.count - offset else { throw CrashViolation("the power-cut journal ends inside a record") }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func u32() throws(CrashViolation) -> UInt32 {
            try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func u64() throws(CrashViolation) -> UInt64 {
            try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}
