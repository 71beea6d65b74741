import Foundation

/// The processes of this machine, read from /proc, for tests that check
/// that what they started has stopped.
public enum ProcessList {
    /// Processes other than this one whose command line contains `text`
    /// (a temporary directory's path names a test's servers: `--store`,
    /// nginx's `-p`), in pid order.
    public static func naming(_ text: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard pid != getpid(), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data, as: UTF8.self).contains(text)
        }.sorted()
    }
}
