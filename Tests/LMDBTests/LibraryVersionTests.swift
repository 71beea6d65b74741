import CLMDB
import Foundation
import Testing

/// `Scripts/test` runs the privacy and scrub tests a second time against
/// liblmdb 0.9.36, built from source by `Scripts/lib/build-lmdb.sh` and
/// loaded through `LD_LIBRARY_PATH`, with `SHARELOG_EXPECT_LIBLMDB=0.9.36`.
/// This test shows that run really loaded that library, not Debian's.
@Suite struct LibraryVersionTests {
    static let expected = ProcessInfo.processInfo.environment["SHARELOG_EXPECT_LIBLMDB"]

    @Test(.enabled(if: expected != nil, "only when a run asks for a liblmdb version"))
    func theTestsRunAgainstTheLiblmdbTheRunAskedFor() {
        #expect(Self.loadedVersion() == Self.expected)
    }

    /// `mdb_version` of the liblmdb this process loaded, as "0.9.36".
    static func loadedVersion() -> String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        _ = mdb_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
