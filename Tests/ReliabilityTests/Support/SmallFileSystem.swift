import Foundation
import Glibc
import Testing
import TestSupport

/// A tmpfs of a fixed size, mounted on a fresh directory for one test, that
/// the test fills with a filler file to run a store out of disk space.
///
/// Mounting needs `CAP_SYS_ADMIN`, so in practice root. Tests that use it
/// carry `.needsSmallFileSystem`:
/// - not root, and a trial mount fails: the test is reported as skipped,
///   with the reason;
/// - root (as in CI): the test always runs, and a mount that fails anyway
///   fails the test, because then the test environment itself is broken
///   and a skip would hide that the disk-full paths went unchecked.
final class SmallFileSystem {
    let directory: TemporaryDirectory
    private let filler: String
    private var mounted = false

    /// A mount that failed.
    struct MountFailed: Error, CustomStringConvertible {
        let reason: String
        var description: String {
            "cannot mount a tmpfs: \(reason); running as root, so the test environment is broken "
                + "(these tests need CAP_SYS_ADMIN and must run in CI)"
        }
    }

    /// A tmpfs that holds at most `size` bytes, rounded up to whole pages.
    init(size: Int, label: String = #function) throws {
        directory = TemporaryDirectory(label)
        filler = directory.appending("filler")
        if let reason = Self.mount(size: size, at: directory.path) { throw MountFailed(reason: reason) }
        mounted = true
    }

    deinit { unmount() }

    /// Detaches the file system at once; the kernel frees it when the last
    /// file in it closes (lazy unmount), so a store handle still closing
    /// cannot make this fail.
    func unmount() {
        guard mounted else { return }
        mounted = false
        if umount2(directory.path, Int32(MNT_DETACH)) != 0 {
            Issue.record("umount '\(directory.path)': \(String(cString: strerror(errno)))")
        }
    }

    /// A path inside the file system.
    func appending(_ component: String) -> String { directory.appending(component) }

    /// Bytes an unprivileged write may still use.
    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(directory.path, &info) == 0 else { return -1 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Writes zeros to the filler file until the file system is full, or
    /// until only `headroom` bytes (rounded down to whole pages) are left.
    ///
    /// - Returns: the bytes left, as the file system reports them.
    @discardableResult
    func fill(leaving headroom: Int = 0) throws -> Int {
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 64 << 10)
        while freeBytes > headroom {
            let count = min(chunk.count, freeBytes - headroom)
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, count) }
            if written < 0 && errno == ENOSPC { break }
            guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        return freeBytes
    }

    /// Deletes the filler file, giving its space back, and waits until the
    /// file system shows it free: a child that another test thread forked
    /// holds a copy of any descriptor open at that moment until its exec,
    /// and the blocks return only when the last copy closes.
    func freeSpace() throws {
        var info = stat()
        let size = stat(filler, &info) == 0 ? Int(info.st_blocks) * 512 : 0
        let before = freeBytes
        try FileManager.default.removeItem(atPath: filler)
        try Deadline.block(until: "the filler's blocks are free again", timeout: .seconds(30), every: .milliseconds(2)) {
            freeBytes >= before + size
        }
    }

    /// Mounts a tmpfs of `size` bytes on `path`; nil on success, else why not.
    private static func mount(size: Int, at path: String) -> String? {
        guard Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(size),mode=0700") == 0 else {
            return "mount(2) of a tmpfs on '\(path)': \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Whether tests that mount a tmpfs run here: always as root (where a
    /// failed mount then fails the test), otherwise only when a trial mount,
    /// tried once per process, succeeds.
    static let mayRun: Bool = {
        if getuid() == 0 { return true }
        let trial = TemporaryDirectory("MountTrial")
        guard mount(size: 1 << 20, at: trial.path) == nil else { return false }
        umount2(trial.path, Int32(MNT_DETACH))
        return true
    }()
}

extension Trait where Self == ConditionTrait {
    /// Runs the test where it can mount a tmpfs (see `SmallFileSystem`),
    /// and otherwise reports it as skipped, saying why.
    static var needsSmallFileSystem: Self {
        .enabled(
            if: SmallFileSystem.mayRun,
            """
            mounting a tmpfs needs root (CAP_SYS_ADMIN); this process is not root and its trial mount failed. \
            As root, as in CI, the test runs, and a failed mount fails it.
            """)
    }
}
