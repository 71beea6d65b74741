import Glibc
import LMDB
import ShareLog
import Testing

/// What every disk-full test expects of the error a full disk causes.
enum DiskFullCheck {
    /// `error` is the typed error of a write the full disk refused: a
    /// storage failure whose LMDB cause is `ENOSPC` when the disk refused a
    /// whole write, `EIO` when LMDB saw one cut short; either way it tells
    /// the user to free disk space.
    static func expectOutOfSpace(_ error: ShareLogError, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .storage(let cause) = error else {
            Issue.record("expected a storage failure, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(cause.code == ENOSPC || cause.code == EIO, "\(cause)", sourceLocation: sourceLocation)
        #expect(error.description.contains("free disk space"), "\(error)", sourceLocation: sourceLocation)
    }
}
