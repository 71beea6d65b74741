import Foundation
import SharePrimitives
import Testing
import TestSupport

/// An owned descriptor opens, reports its file and is closed when its
/// owner ends; a failed open says which file and why.
@Suite struct OwnedDescriptorTests {
    @Test func itIsClosedWhenItsOwnerEnds() throws {
        let directory = TemporaryDirectory()
        let path = directory.appending("file")
        try Data("twelve bytes".utf8).write(to: URL(fileURLWithPath: path))
        var raw: Int32 = -1
        do {
            let file = try OwnedDescriptor(opening: path, flags: O_RDONLY)
            raw = file.raw
            #expect(try file.size() == 12)
            #expect(fcntl(raw, F_GETFD) >= 0)
        }
        // The number may be reused by another thread's open at once; what
        // must hold is that ours no longer names this file.
        var info = stat()
        if fstat(raw, &info) == 0 {
            var original = stat()
            stat(path, &original)
            #expect(info.st_ino != original.st_ino || info.st_dev != original.st_dev)
        }
    }

    @Test func aFailedOpenNamesTheFileAndKeepsErrno() {
        let path = TemporaryDirectory().appending("missing")
        #expect(throws: SystemError(code: ENOENT, context: "open '\(path)'")) {
            _ = try OwnedDescriptor(opening: path, flags: O_RDONLY)
        }
    }

    @Test func itCreatesWithTheModeGiven() throws {
        let directory = TemporaryDirectory()
        let path = directory.appending("made")
        let file = try OwnedDescriptor(opening: path, flags: O_RDWR | O_CREAT, mode: 0o600)
        #expect(try file.status().st_mode & 0o777 == 0o600)
    }
}
