import Glibc

/// The gateway's log on standard error: one `write(2)` a line, so lines
/// from libmicrohttpd's threads never interleave, and nothing is buffered
/// that a crash could lose.
enum AccessLog {
    static let write: @Sendable (String) -> Void = { line in
        let bytes = Array("sharelog: \(line)\n".utf8)
        bytes.withUnsafeBytes { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
