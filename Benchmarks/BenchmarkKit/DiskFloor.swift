import Glibc
import ShareLog

/// The disk's floor for a sweep (issue 11): what a sweep must write per
/// expired share, at the sequential durable write bandwidth of the file
/// system the stores live on, plus its share of the syncs durability
/// needs, both measured in the same run.
///
/// What a sweep must write, in format 2: its log entry (one `shareExpired`
/// per share, as `EventCodec` encodes it, under its 8-byte log position),
/// the `eventIndex` entry that finds it (24-byte id, 8-byte position) and
/// the `pendingRedactions` key that queues the card (8 bytes). A durable
/// batch needs at least one sync, so each share also pays one sync over
/// the batch size. Whatever else a design touches (B-tree pages, page
/// headers, the second sync LMDB makes for its meta page) is its own cost
/// above the floor.
struct DiskFloor {
    /// Bytes per second of `write` then one `fdatasync`, like
    /// `dd bs=1M conv=fsync`.
    let bytesPerSecond: Double
    /// Seconds of one 4 KiB `pwrite` then `fdatasync` of a file: the median
    /// of `syncSamples`.
    let secondsPerSync: Double

    static let syncSamples = 21

    /// Bytes one expired share must add: its log entry and its two index entries.
    static let bytesPerExpiredShare: Int = {
        let event = Event(
            id: EventID(origin: ReplicaID.random(), counter: 1),
            kind: .shareExpired(ShareExpired(recordName: .random(), at: Timestamp(milliseconds: 0), reason: .ttl)))
        let logEntry = EventCodec.encode(event).count + MemoryLayout<UInt64>.size
        let eventIndexEntry = 24 + MemoryLayout<UInt64>.size
        let pendingRedactionKey = MemoryLayout<UInt64>.size
        return logEntry + eventIndexEntry + pendingRedactionKey
    }()

    /// The floor's time per expired share, in microseconds, for a sweep
    /// that commits `batch` shares at a time.
    func microsecondsPerExpiredShare(batch: Int) -> Double {
        (Double(Self.bytesPerExpiredShare) / bytesPerSecond + secondsPerSync / Double(batch)) * 1e6
    }

    /// Writes `bytes` to a new file in `directory` in 1 MiB writes, syncs it
    /// once, and removes it; the bandwidth is bytes over that whole time.
    static func measure(in directory: String, bytes: Int) throws -> DiskFloor {
        let path = directory + "/disk-floor-\(getpid())"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchError.io("open \(path): \(String(cString: strerror(errno)))") }
        defer {
            close(descriptor)
            unlink(path)
        }
        let chunk = [UInt8](repeating: 0xA5, count: 1 << 20)
        let stopwatch = Stopwatch()
        var written = 0
        while written < bytes {
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, min($0.count, bytes - written)) }
            guard count > 0 else { throw BenchError.io("write \(path): \(String(cString: strerror(errno)))") }
            written += count
        }
        guard fdatasync(descriptor) == 0 else { throw BenchError.io("fdatasync \(path): \(String(cString: strerror(errno)))") }
        let bytesPerSecond = Double(written) / stopwatch.seconds
        var syncs: [Double] = []
        for sample in 0..<syncSamples {
            let sync = Stopwatch()
            let count = chunk.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 4096, off_t(sample * 4096)) }
            guard count == 4096, fdatasync(descriptor) == 0 else {
                throw BenchError.io("pwrite+fdatasync \(path): \(String(cString: strerror(errno)))")
            }
            syncs.append(sync.seconds)
        }
        return DiskFloor(bytesPerSecond: bytesPerSecond, secondsPerSync: syncs.sorted()[syncs.count / 2])
    }
}
