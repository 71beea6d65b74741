import Foundation
import SharePrimitives
import ShareLog

/// One replica's stream key (`StreamKey`), kept in a file that it advances
/// to the current hour, and the card keys derived from it.
///
/// Every replica of a stream holds a copy of the same key file, made once
/// by `sharelog relay-key FILE` and copied to each (a replica that joins
/// later gets a copy of a current one: it can read every card of a share
/// still live, and none of one that expired before its copy was made).
/// Each advances its copy on its own; the ratchet is deterministic, so all
/// copies agree at the same hour.
///
/// **Erasure.** `advance(to:)` overwrites the file in place, at the same
/// length, and syncs it, then forgets the older card keys it cached. On a
/// file system that overwrites blocks in place (ext4, xfs: not
/// copy-on-write ones, nor their snapshots) the older chain key is gone
/// from the file once it returns, and it cannot be computed from the new
/// one. So a card sealed for hour h is unreadable from every copy of the
/// stream once every replica's relay has advanced past h: at most one
/// hour and one poll after its share expired (docs/SCALING.md "Personal
/// data").
public final class StreamKeyring: Sendable {
    /// The key and the card keys derived from it so far, by hour.
    private struct State {
        var key: StreamKey
        var cache: [Int64: SecretBytes] = [:]
    }

    public let path: String
    private let state: Locked<State>

    /// Reads the key file at `path` and advances it to `now`'s hour.
    ///
    /// - Throws: `StreamKeyringError`: unreadable, readable by others
    ///   (`.exposed`: run `chmod 600`), or not a stream key.
    public init(path: String, now: Timestamp) throws(StreamKeyringError) {
        self.path = path
        state = try Locked(State(key: Self.read(path)))
        try advance(to: now)
    }

    /// Writes a new random key for `now`'s hour to a new file at `path`
    /// (mode 0600; never replaces a file).
    @discardableResult
    public static func create(at path: String, now: Timestamp) throws(StreamKeyringError) -> StreamKey {
        let key = StreamKey.generate(hour: StreamKey.hour(atMilliseconds: now.milliseconds))
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw errno == EEXIST ? .exists(path: path) : .unwritable(path: path, errno: errno) }
        defer { close(descriptor) }
        // The umask may have taken bits away from 0600; it cannot add any.
        guard fchmod(descriptor, 0o600) == 0 else { throw failedWrite(path, errno) }
        try write(key.encoded(), to: descriptor, path: path)
        return key
    }

    /// The hour the key stands at now.
    public var hour: Int64 { state.withLock { $0.key.hour } }

    /// Moves the key to `now`'s hour, if that is later than its own, and
    /// rewrites the file in place; erases every older key from memory.
    public func advance(to now: Timestamp) throws(StreamKeyringError) {
        let target = StreamKey.hour(atMilliseconds: now.milliseconds)
        try state.withLock { state throws(StreamKeyringError) in
            guard target > state.key.hour else { return }
            let next = state.key.advanced(to: target)
            let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { throw .unwritable(path: path, errno: errno) }
            defer { close(descriptor) }
            let text = next.encoded()
            try Self.write(text, to: descriptor, path: path)
            guard ftruncate(descriptor, off_t(text.count)) == 0, fsync(descriptor) == 0 else { throw Self.failedWrite(path, errno) }
            state.key = next
            state.cache = state.cache.filter { $0.key >= target }
        }
    }

    /// The card key of `hour` (cached), or nil when it is erased (before
    /// the key's hour) or beyond the window of any TTL.
    package func cardKey(forHour hour: Int64) -> SecretBytes? {
        state.withLock { state in
            if let cached = state.cache[hour] { return cached }
            guard let derived = state.key.cardKey(forHour: hour) else { return nil }
            state.cache[hour] = derived
            return derived
        }
    }

    private static func read(_ path: String) throws(StreamKeyringError) -> StreamKey {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw .unreadable(path: path, errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, errno: errno) }
        guard status.st_mode & 0o077 == 0 else { throw .exposed(path: path, mode: UInt32(status.st_mode)) }
        var text = [UInt8](repeating: 0, count: 256)
        defer { SecretBytes.erase(&text) }
        let count = text.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw .unreadable(path: path, errno: errno) }
        do {
            var read = Array(text[..<count])
            defer { SecretBytes.erase(&read) }
            return try StreamKey(encoded: read)
        } catch {
            throw .malformed(path: path, error)
        }
    }

    /// Writes all of `text` at offset 0, from where it is, and syncs it.
    private static func write(_ text: SecretBytes, to descriptor: Int32, path: String) throws(StreamKeyringError) {
        try text.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(StreamKeyringError) in
            var offset = 0
            while offset < bytes.count {
                let written = pwrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset, off_t(offset))
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw failedWrite(path, written < 0 ? errno : EIO) }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw failedWrite(path, errno) }
    }

    private static func failedWrite(_ path: String, _ code: Int32) -> StreamKeyringError { .unwritable(path: path, errno: code) }
}
