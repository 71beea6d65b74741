import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ShareSync

/// 100 good clips fetch from a keyed `sharelog serve` of 3,000 shares
/// while bad clients of every kind hammer it at once: random bytes, an
/// oversized frame length, hellos trickled a byte a second, pushes under
/// another key, a recorded handshake replayed, a flood of 300 silent
/// connections and one of 100 that send one byte, more than the server's
/// 64 sessions, and 8 clips that hold clip places asking for nothing
/// (issue 14, "Hostile and broken peers"; issue "Sync for hostile
/// networks"). Every good fetch gets its card, no bad client gets in or
/// writes, and the server's memory stays bounded.
@Suite(.serialized, .timeLimit(.minutes(3))) struct HostilePeersLoadTests {
    /// Good clip sessions (`SHARELOG_LOAD_CLIPS` for a long run), and how
    /// many run at once (two cores).
    static let goodClips = ProcessInfo.processInfo.environment["SHARELOG_LOAD_CLIPS"].flatMap { Int($0) } ?? 100
    static let lanes = 25
    /// The bound on the server's peak resident memory: its runtime and
    /// heap (some 20 MB idle), the store's whole file mapped in (about
    /// 6 MB here), 64 sessions' threads and buffers (a batch of at most
    /// 1 MiB each, and a fetch of one share needs a few KiB), and 256
    /// waiting connections of a few KiB each. A server that kept a thread
    /// or a buffer per flooding connection, or reserved the 2 GiB a frame
    /// length claims, goes over it.
    static let peakResidentBoundKiB = 200 * 1024
    static let garbageSeed: UInt64 = 0x5EED_1A0D_BAD5

    @Test func goodClipsAllFetchTheirCardsWhileBadClientsAreRefused() throws {
        let bench = try HostileLoadBench()
        let logBefore = try bench.main.logIDs()
        #expect(logBefore.count == HostileLoadBench.shares)
        let server = try bench.serve()
        defer { _ = try? server.stop() }
        let endpoint = try Endpoint(parsing: server.endpoint)
        let replay = try bench.recordPush()
        print("HostilePeersLoadTests: random bytes from seed \(Self.garbageSeed)")
        let crowd = HostileCrowd(HostileCrowd.Target(
            endpoint: endpoint, connect: server.endpoint, stranger: bench.stranger, otherKeyFile: bench.otherKeyFile,
            replay: replay, garbageSeed: Self.garbageSeed))
        crowd.start()
        var crowdStopped = false
        defer { if !crowdStopped { try? crowd.stop { server.pump() } } }

        // The bad clients are all at work, the flood holding its 300, before the first good clip starts.
        var peakAnonymousKiB = 0
        try Deadline.block(until: "every kind of bad client is at work", timeout: .seconds(30), every: .milliseconds(20)) {
            server.pump()
            let started = [HostilePeer.oversizedLength, .replayedHandshake, .wrongKey].allSatisfy { crowd.tally.counts(of: $0).attempts >= 1 }
            return started && crowd.floodHeld == HostileCrowd.floodSize
        }

        let commands = (0..<Self.goodClips).map { bench.clipCommand($0, endpoint: server.endpoint) }
        print("HostilePeersLoadTests: \(Self.goodClips) good clips (SHARELOG_LOAD_CLIPS), \(Self.lanes) at a time")
        let results = Mutex<Result<[CLIResult], any Error>?>(nil)
        let clips = Thread {
            let outcome = Result { try SharelogCLI.runAll(commands, lanes: Self.lanes) }
            results.withLock { $0 = outcome }
        }
        clips.start()
        let started = ContinuousClock.now
        // The server's log is read all along, so that it never blocks on a full pipe.
        try Deadline.block(until: "the \(Self.goodClips) good clips have ended", timeout: .seconds(120 + Self.goodClips / 5), every: .milliseconds(50)) {
            server.pump()
            peakAnonymousKiB = max(peakAnonymousKiB, try ProcessMemory(of: server.pid).anonymousKiB)
            return results.withLock { $0 != nil }
        }
        let goodPhase = ContinuousClock.now - started
        let memory = try ProcessMemory(of: server.pid)
        // A trickler is refused only at its handshake deadline, which a quick
        // good phase can beat: the crowd runs on until each kind has had an
        // attempt end, so that each is checked below.
        try Deadline.block(until: "an attempt of every kind of bad client has ended", timeout: .seconds(60), every: .milliseconds(50)) {
            server.pump()
            return HostilePeer.allCases.allSatisfy { crowd.tally.counts(of: $0).attempts >= 1 }
        }
        try crowd.stop { server.pump() }
        crowdStopped = true
        let outcomes = try #require(try results.withLock { $0 }?.get())

        // Every good fetch: exit 0 and the card as the seed made it.
        #expect(outcomes.count == Self.goodClips)
        for (clip, outcome) in outcomes.enumerated() {
            let index = HostileLoadBench.shareIndex(clip)
            #expect(outcome.status == 0, "good clip \(clip) (share \(index)): \(outcome.error)")
            let sameCard = outcome.output == HostileLoadBench.card(index)
            #expect(sameCard, "good clip \(clip) printed \(outcome.output.count) bytes, not the card of share \(index)")
        }
        let served = outcomes.enumerated().count { $0.element.status == 0 && $0.element.output == HostileLoadBench.card(HostileLoadBench.shareIndex($0.offset)) }

        // Every bad attempt was refused, none got in; each kind was at work.
        var refusedByClients = 0
        for kind in HostilePeer.allCases {
            let counts = crowd.tally.counts(of: kind)
            refusedByClients += counts.refused
            print("HostilePeersLoadTests: \(kind.rawValue): \(counts.attempts) attempts, \(counts.refused) refused, "
                + "\(counts.unreachedCount) never reached the server \(counts.unreached)")
            #expect(counts.admitted == [], "\(kind.rawValue) got in")
            #expect(counts.refused >= 1, "no \(kind.rawValue) attempt was refused")
            #expect(counts.unreachedCount == 0, "\(kind.rawValue): \(counts.unreached)")
        }

        // The server's own account, once every connection has ended.
        let log = try server.stop()
        #expect(log.succeeded, "the server after SIGTERM: \(log.error.suffix(2_000))")
        let lines = log.error.split(separator: "\n").map(String.init)
        let sessionLines = lines.filter { $0.hasPrefix("sharelog: session ") }
        // Clip sessions: the good ones, and the idle clips', known by their
        // replica ids (a clip turned away as busy never got a session).
        let idleLines = sessionLines.filter { $0.contains(" clip \(HostileCrowd.idleClipPrefix)") }
        let clipLines = sessionLines.filter { $0.contains(" clip ") && !idleLines.contains($0) && !$0.contains(": refused: busy") }
        let endedWell = sessionLines.filter { $0.contains(": ended well;") }
        let refusedByServer = sessionLines.filter { $0.contains(": closed: ") || $0.contains(": refused: ") }
        #expect(idleLines.contains { $0.contains("the clip asked for nothing") }, "no idle clip was ended for idleness")
        // The 100 clips, and no other session, ended well.
        #expect(clipLines.count == Self.goodClips, "\(clipLines.filter { !$0.contains("ended well") }.prefix(5))")
        #expect(clipLines.allSatisfy { $0.contains(" fetch: ended well;") }, "\(clipLines.filter { !$0.contains("ended well") }.prefix(5))")
        #expect(endedWell.count == Self.goodClips, "\(endedWell.filter { !$0.contains(" clip ") })")

        // Nothing from a bad session was written.
        #expect(try bench.main.logIDs() == logBefore)
        #expect(try bench.main.lastPosition() == UInt64(HostileLoadBench.shares))
        #expect(try bench.main.run("peers", "--json").jsonArray?.isEmpty == true)
        #expect(try bench.main.verify() == 0)

        #expect(memory.peakResidentKiB < Self.peakResidentBoundKiB, "the server's peak RSS")
        print("HostilePeersLoadTests: \(served) of \(Self.goodClips) good fetches served in \(goodPhase) (\(Self.lanes) at a time); "
            + "bad sessions refused: \(refusedByClients) counted by the clients, \(refusedByServer.count) closed or refused in the server's log "
            + "(\(refusedByServer.filter { $0.contains("dropped before its handshake ended") }.count) displaced from the vestibule); "
            + "server peak RSS \(memory.peakResidentKiB / 1024) MiB (VmHWM), peak anonymous \(peakAnonymousKiB / 1024) MiB (RssAnon)")
    }
}
