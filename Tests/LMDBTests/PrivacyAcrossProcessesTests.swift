import CLMDB
import Foundation
import LMDBScrub
import TestSupport
import Testing
@testable import LMDB
import TestTraits

/// Scrub's guarantee with a second process: another process that wrote and
/// deleted the secrets itself, and still has the environment open, writes
/// again after this process's scrub. No byte of a secret may come back.
///
/// Without `MDB_WRITEMAP`, liblmdb in that process would keep page buffers
/// that held the secrets and copy only the used parts of later pages into
/// them, so its next commits would write secret bytes into the gaps of
/// their pages, where this process's scrub cannot reach.
@Suite(.hangDeadline, .ownThread) struct PrivacyAcrossProcessesTests {
    @Test func anotherProcessThatHeldTheSecretsWritesNoneBackAfterTheScrub() throws {
        let fixture = try ScrubTests.Fixture()
        let scratch = TemporaryDirectory()
        let peer = try Peer("expire-then-write", directory: fixture.directory.path, scratch: scratch)
        #expect(try peer.nextLine("say its liblmdb") == "liblmdb \(LibraryVersionTests.loadedVersion())")
        #expect(try peer.nextLine("write and expire its secrets") == "expired")
        #expect(try fixture.fileContainsMarker(), "the test must see the stale bytes it is about")

        let report = try fixture.env.scrub()
        #expect(report.freePagesDeferred == 0)
        #expect(try !fixture.fileContainsMarker())

        peer.go()
        // The peer removes all 256 of its public shares over six rounds and
        // adds 6 × 300 notes to its 400.
        #expect(try peer.nextLine("write public values") == "done 0 2200")
        let outcome = try peer.finish()
        #expect(outcome.status == 0 && !outcome.signaled, "\(String(decoding: outcome.error, as: UTF8.self))")
        #expect(try !fixture.fileContainsMarker())

        // This process reads what the peer wrote, and a scrub, which checks
        // every page against LMDB's counts, finds the file consistent.
        let counts = try fixture.env.read { txn in (try txn.count(in: fixture.shares), try txn.count(in: fixture.notes)) }
        #expect(counts == (0, 2200))
        try fixture.env.scrub()
        #expect(try !fixture.fileContainsMarker())
    }
}
