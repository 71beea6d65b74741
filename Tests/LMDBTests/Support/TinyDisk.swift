import Foundation
import Glibc
import TestSupport

/// A tmpfs of a few MiB mounted for one test, with a filler file to run it
/// out of space; unmounted (lazily) when it goes. Mounting needs root, so
/// tests that use it run only as root (as in CI), where a failed mount
/// fails them.
final class TinyDisk {
    let directory = TemporaryDirectory("TinyDisk")
    private var filler: Int32 = -1

    static var mayMount: Bool { getuid() == 0 }

    struct MountFailed: Error, CustomStringConvertible {
        let description: String
    }

    init(size: Int) throws {
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=\(size),mode=0700") == 0 else {
            throw MountFailed(description: "mount a tmpfs on '\(directory.path)': \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if filler >= 0 { close(filler) }
        umount2(directory.path, Int32(MNT_DETACH))
    }

    /// A path inside the file system.
    func appending(_ component: String) -> String { directory.appending(component) }

    /// Writes a filler file until the file system is full, or until only
    /// `headroom` bytes are left.
    func fill(leaving headroom: Int = 0) throws {
        filler = open(appending("filler"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard filler >= 0 else { throw MountFailed(description: "create the filler: \(String(cString: strerror(errno)))") }
        let chunk = [UInt8](repeating: 0xF1, count: 4096)
        while freeBytes > headroom {
            let written = chunk.withUnsafeBytes { write(filler, $0.baseAddress, min($0.count, freeBytes - headroom)) }
            if written < 0 { break }
        }
    }

    /// Deletes the filler file, giving its space back, and waits until the
    /// file system shows it free: a child that another test thread forked
    /// holds a copy of the filler's descriptor until its exec, and the
    /// blocks return only when the last copy closes.
    func freeSpace() throws {
        var info = stat()
        let size = fstat(filler, &info) == 0 ? Int(info.st_blocks) * 512 : 0
        let before = freeBytes
        close(filler)
        filler = -1
        unlink(appending("filler"))
        try Deadline.block(until: "the filler's blocks are free again", timeout: .seconds(30), every: .milliseconds(2)) {
            freeBytes >= before + size
        }
    }

    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(directory.path, &info) == 0 else { return -1 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }
}
