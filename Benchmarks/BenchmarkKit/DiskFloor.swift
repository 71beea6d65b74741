import Glibc
import ShareLog

/// The disk's floor for a sweep (issue 11): the bytes a sweep must write
/// per expired share, at the sequential durable write bandwidth of the file
/// system the stores live on, measured in the same run.
///
/// What a sweep must write is its log entries: one `shareExpired` event per
/// share, as `EventCodec` encodes it, under its 8-byte log position. Whatever
/// else a design touches (index and projection pages, LMDB's page headers
/// and meta pages) is its own cost above the floor.
struct DiskFloor {
    /// Bytes per second of `write` then one `fdatasync`, like
    /// `dd bs=1M conv=fsync`.
    let bytesPerSecond: Double

    /// Bytes one expired share's log entry needs: its encoding and its key.
    static let bytesPerExpiredShare: Int = {
        let event = Event(
            id: EventID(origin: ReplicaID.random(), counter: 1),
            kind: .shareExpired(ShareExpired(recordName: .random(), at: Timestamp(milliseconds: 0), reason: .ttl)))
        return EventCodec.encode(event).count + MemoryLayout<UInt64>.size
    }()

    /// The floor's time per expired share, in microseconds.
    var microsecondsPerExpiredShare: Double { Double(Self.bytesPerExpiredShare) / bytesPerSecond * 1e6 }

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
        return DiskFloor(bytesPerSecond: Double(written) / stopwatch.seconds)
    }
}
