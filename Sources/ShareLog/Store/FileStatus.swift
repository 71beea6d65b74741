#if canImport(Glibc)
import Glibc
#endif

/// What `stat(2)` says of a path, for the checks an open makes before it
/// opens anything: one system call, without Foundation's `FileManager`,
/// whose first use set up more than a clip's cold start spends on its fetch
/// (BENCHMARKS.md, "The third round").
enum FileStatus {
    /// The size in bytes of what is at `path` (symbolic links followed), or
    /// nil when nothing is there or it cannot be examined.
    static func size(atPath path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }
}
