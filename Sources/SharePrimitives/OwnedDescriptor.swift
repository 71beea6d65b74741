import Glibc

/// A file descriptor that is closed exactly once, when its owner ends:
/// move-only, so no copy can close it early or use it after the close.
package struct OwnedDescriptor: ~Copyable {
    /// The descriptor, valid for the owner's lifetime. Never close it.
    package let raw: Int32
    /// What the descriptor is, for error messages: the path it was opened
    /// from, quoted, or "descriptor N".
    package let name: String

    /// Opens `path` with `flags` (`O_CLOEXEC` is added), creating it with
    /// `mode` when `flags` holds `O_CREAT`.
    package init(opening path: String, flags: Int32, mode: mode_t = 0) throws(SystemError) {
        let descriptor = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw SystemError("open '\(path)'") }
        raw = descriptor
        name = "'\(path)'"
    }

    /// Takes ownership of `descriptor`, which nobody else may close.
    package init(adopting descriptor: Int32) {
        raw = descriptor
        name = "descriptor \(descriptor)"
    }

    deinit { Glibc.close(raw) }

    /// The file's size in bytes (`fstat`).
    package func size() throws(SystemError) -> Int {
        try status().st_size
    }

    /// The file's `fstat`.
    package func status() throws(SystemError) -> stat {
        var info = stat()
        guard fstat(raw, &info) == 0 else { throw SystemError("fstat \(name)") }
        return info
    }
}
