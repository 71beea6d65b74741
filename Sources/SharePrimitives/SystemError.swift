import Glibc

/// A failed system call: its `errno` and what was being done. Each layer
/// turns it into its own error (`LMDBError`, `TransportError`) with the
/// code kept.
package struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `errno` the call left.
    package let code: Int32
    /// What was being done, e.g. "open '/tmp/s/data.mdb'".
    package let context: String

    /// The error of the call that just failed: reads `errno` at once.
    package init(_ context: String) {
        self.init(code: errno, context: context)
    }

    package init(code: Int32, context: String) {
        self.code = code
        self.context = context
    }

    package var description: String { "\(context): \(String(cString: strerror(code)))" }
}
