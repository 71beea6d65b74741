import Glibc
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// The maintenance lock is free the moment its holder lets go, even while
/// a child forked during the hold still has a copy of its descriptor: the
/// window in which another thread's `posix_spawn` has forked but not yet
/// exec'd. Before the lock unlocked explicitly, a pass right after another
/// was skipped (`ran` false) whenever that window was open.
@Suite(.hangDeadline) struct MaintenanceLockTests {
    @Test func aChildForkedWhileTheLockWasHeldDoesNotKeepIt() throws {
        let test = try TestStore()
        var held = try MaintenanceLock.acquire(inDirectory: test.store.path)
        #expect(held != nil)
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let child = fork()
        if child == 0 {
            // The child holds every descriptor the parent had, the lock's
            // among them, until the parent closes the pipe's write end.
            close(ends[1])
            var byte: UInt8 = 0
            _ = read(ends[0], &byte, 1)
            _exit(0)
        }
        #expect(child > 0)
        defer {
            close(ends[1])
            close(ends[0])
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
        }
        held = nil
        #expect(try test.store.maintain().ran, "the released lock is still held through the child")
    }
}
