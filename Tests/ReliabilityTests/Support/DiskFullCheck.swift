import Glibc
import LMDB
import Testing

/// What every disk-full test expects of the error a full disk causes.
enum DiskFullCheck {
    /// `error` is the typed error of a write the full disk refused: `ENOSPC`
    /// when the disk refused a whole write, `EIO` when LMDB saw one cut
    /// short; either way it tells the user to free disk space.
    static func expectOutOfSpace(_ error: LMDBError, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error.code == ENOSPC || error.code == EIO, "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains("free disk space"), "\(error)", sourceLocation: sourceLocation)
    }
}
