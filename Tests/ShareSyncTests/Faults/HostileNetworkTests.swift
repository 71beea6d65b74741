import Foundation
import Glibc
import ShareLog
import Testing
import TestSupport
@testable import ShareSync
import TestTraits

/// Attacks on a real `sharelog serve`'s front door from a hostile network
/// (issue "Sync for hostile networks"): floods of connections that never
/// finish their handshake, clips that hold places and ask for nothing,
/// text made to forge or flood the log, a log nobody reads, descriptors
/// run out, oversized handshake frames, `busy` over TLS, and what a
/// stranger may learn in `accepted`.
///
/// In every attack a well-behaved main (`sharelog sync --pull` from a
/// store of its own, with the key) and, on the Unix socket, a well-behaved
/// clip (`sharelog clip open LINK --connect unix:… --vcard`) are served
/// while the attack holds. Every wait is bounded; what is checked is
/// counts and outcomes, never how long anything took.
@Suite(.serialized, .hangDeadline) struct HostileNetworkTests {
    /// Connections of the one-byte flood: more than the 64 session places.
    static let oneByteFlood = 80
    /// Raw clips that complete their handshake and then ask for nothing.
    static let idleClips = 64
    /// The clip pool of the idle-clip test's server, given explicitly.
    static let clipPlaces = 16
    /// The text of the forged `error`: a line break and the start of one of
    /// the server's own lines, a terminal escape (clear screen), and more
    /// than the 300 bytes a log line keeps of a peer's text.
    static let forgery = "\nsharelog: session forged: ended well;" + "\u{1B}[2J" + String(repeating: "A", count: 400)
    /// Connections that each send a bad frame while nobody reads the log.
    static let badFrames = 3_000
    /// Silent connections against a server of 128 descriptors.
    static let silentConnections = 160
    static let descriptorLimit = 128
    /// Connections declaring a frame of 4 MiB - 1, and what each then sends.
    static let oversizedHandshakes = 48
    static let oversizedLength = 4 * 1024 * 1024 - 1
    static let oversizedSent = 1024 * 1024
    /// How much the server's peak resident memory may grow over that attack.
    static let oversizedGrowthBoundKiB = 64 * 1024

    // MARK: 1. One-byte flood

    /// 80 connections that send one byte (the first of a TLS record on TCP,
    /// of a frame's length on the Unix socket) and then nothing, all held
    /// open: they wait without a place, and the good clients are served.
    @Test(arguments: HostileNetworkBench.Transport.allCases)
    func aOneByteFloodKeepsNoGoodClientOut(_ transport: HostileNetworkBench.Transport) throws {
        let bench = try HostileNetworkBench()
        // A handshake deadline longer than the test: the flood is held, not timed out.
        let server = try bench.serve(transport == .unix ? bench.unixListen : "tcp:127.0.0.1:0", ["--handshake-timeout", "120"])
        defer { _ = try? server.stop() }
        let endpoint = try HostileNetworkBench.endpoint(server)
        let byte: UInt8 = transport == .tcp ? 0x16 : 0x00
        var flood: [SocketChannel] = []
        defer { flood.forEach { $0.close() } }
        for _ in 0..<Self.oneByteFlood {
            let connection = try SocketChannel.connect(to: endpoint, deadline: .now + .seconds(20))
            try connection.write([byte], deadline: .now + .seconds(20))
            flood.append(connection)
        }

        try bench.expectGoodMain(server.endpoint, "one-byte flood over \(transport)")
        if transport == .unix { try bench.expectGoodClip(server.endpoint, share: 2, "one-byte flood over unix") }

        // The flood was held all along: the server closed none of it.
        let answered = flood.count { HostileNetworkBench.hasAnswered($0) }
        #expect(answered == 0, "the server closed or answered \(answered) of the \(Self.oneByteFlood) one-byte connections")
        // The server logs a session's end from its log thread, after the
        // client has what it asked for: wait for the lines, then count them.
        let served = transport == .unix ? 2 : 1
        try server.waitForEndedWellLines(served)
        #expect(server.closedLines.isEmpty, "sessions closed during the flood: \(server.closedLines.prefix(5))")
        #expect(server.endedWellLines.count == served, "\(server.lines.suffix(5))")
        print("HostileNetworkTests [\(transport)]: \(Self.oneByteFlood) one-byte connections held; good clients served")
    }

    // MARK: 2. Idle clips

    /// 64 raw clips complete the handshake and then send only heartbeats.
    /// The clips' pool holds 16 of them at most (the rest are told busy),
    /// the good main is served at once from its own pool, the good clip
    /// gets a place once the idle ones are ended with `error(idle)`.
    @Test func idleClipsKeepNeitherMainsNorClipsOut() throws {
        let bench = try HostileNetworkBench()
        let server = try bench.serve(bench.unixListen, ["--clip-idle-timeout", "2", "--max-clip-sessions", "\(Self.clipPlaces)"])
        defer { _ = try? server.stop() }
        let endpoint = try HostileNetworkBench.endpoint(server)

        var clips: [RawPeer] = []
        for index in 0..<Self.idleClips {
            let peer = try RawPeer(endpoint)
            try peer.send(HostileNetworkBench.hello(.clip, replica: HostileNetworkBench.replica(100 + index)))
            clips.append(peer)
        }
        var admitted: [RawPeer] = []
        var busy = 0
        for (index, peer) in clips.enumerated() {
            switch try peer.receive() {
            case .welcome?:
                guard case .accepted(let accepted)? = try peer.receive() else {
                    Issue.record("raw clip \(index) was welcomed and then not accepted")
                    continue
                }
                #expect(accepted.heldOfYou == 0, "raw clip \(index)")
                admitted.append(peer)
            case .error(.busy, _)?:
                busy += 1
            case let other:
                Issue.record("raw clip \(index): the server answered its hello with \(String(describing: other))")
            }
        }
        // No clip arrives after this point, so every admitted clip the
        // server has not ended yet held its place at this same moment.
        let holding = admitted.count { !HostileNetworkBench.hasAnswered($0.channel) }
        print("HostileNetworkTests: of \(Self.idleClips) raw clips, \(admitted.count) admitted, \(busy) told busy, \(holding) holding a place")
        #expect(admitted.count >= Self.clipPlaces, "the clips' pool was never full")
        #expect(busy >= 1 && admitted.count + busy == Self.idleClips)
        #expect(holding <= Self.clipPlaces, "more clips held places at once than the pool has")

        var endings: [[Message]?] = Array(repeating: nil, count: admitted.count)
        var lastBeat = ContinuousClock.now - .seconds(1)
        /// Heartbeats every 500 ms from every raw clip still held; reads the
        /// last words of each the server ended.
        func tick() throws {
            server.pump()
            for (index, peer) in admitted.enumerated() where endings[index] == nil && HostileNetworkBench.hasAnswered(peer.channel) {
                endings[index] = try RawPeer.messages(in: peer.readUntilClosed(timeout: .seconds(10))).filter { $0 != .heartbeat }
            }
            guard ContinuousClock.now - lastBeat >= .milliseconds(500) else { return }
            lastBeat = .now
            for (index, peer) in admitted.enumerated() where endings[index] == nil { try? peer.send(HostileNetworkBench.frame(.heartbeat)) }
        }

        try bench.expectGoodMain(server.endpoint, "idle clips", tick: tick)
        try bench.expectGoodClip(server.endpoint, share: 3, "idle clips", tick: tick)
        try Deadline.block(until: "the server ends every idle clip", timeout: .seconds(60), every: .milliseconds(50)) {
            try tick()
            return endings.allSatisfy { $0 != nil }
        }
        let idle = endings.count { ending in
            guard let ending, ending.count == 1, case .error(.idle, _) = ending[0] else { return false }
            return true
        }
        #expect(idle == admitted.count, "the idle clips' last words: \(endings.filter { $0?.count != 1 }.prefix(3))")

        let log = try server.stop()
        #expect(log.succeeded, "the server after SIGTERM: \(log.error.suffix(1_000))")
        let lines = log.error.split(separator: "\n")
        #expect(lines.count { $0.contains(": closed: the clip asked for nothing for") } == admitted.count)
        #expect(lines.count { $0.contains(": refused: busy (\(Self.clipPlaces) clip sessions)") } >= busy)
        #expect(lines.count { $0.contains(": refused: busy") && $0.contains("main sessions") } == 0, "the good main was told busy")
        #expect(lines.count { $0.contains(" clip ") && $0.contains(" fetch: ended well;") } == 1, "the good clip's session")
    }

    // MARK: 3. Log injection

    /// A peer's `error` text cannot start a line of its own in the server's
    /// log, cannot reach a terminal as an escape, and is cut; an `error`
    /// frame of 4 MiB is refused on its header.
    @Test func peerTextCannotForgeOrFloodTheLog() throws {
        let bench = try HostileNetworkBench()
        let server = try bench.serve(bench.unixListen, ["--handshake-timeout", "5"])
        defer { _ = try? server.stop() }
        let endpoint = try HostileNetworkBench.endpoint(server)
        let forged = HostileNetworkBench.frame(.error(code: .internal, message: Self.forgery))

        // A clip, admitted, ends its session with the forged text.
        let clip = try RawPeer(endpoint)
        try clip.send(HostileNetworkBench.hello(.clip, replica: HostileNetworkBench.replica(300)))
        guard case .welcome? = try clip.receive(), case .accepted? = try clip.receive() else {
            Issue.record("the raw clip was not admitted")
            return
        }
        try clip.send(forged)
        _ = try clip.readUntilClosed()
        try server.waitForClosedLines(1)

        // A main of the keyed server sends it instead of its proof.
        let main = try RawPeer(endpoint)
        try main.send(HostileNetworkBench.hello(.main, replica: HostileNetworkBench.replica(301), directions: .pull))
        guard case .welcome? = try main.receive() else {
            Issue.record("the raw main was not welcomed")
            return
        }
        try main.send(forged)
        _ = try main.readUntilClosed()
        try server.waitForClosedLines(2)

        // The header of an error frame of 4 MiB, and none of its payload:
        // refused then and there, not at the handshake deadline.
        let oversized = try RawPeer(endpoint)
        try oversized.send(HostileNetworkBench.header(length: 4 * 1024 * 1024, type: FrameType.error.rawValue))
        let refusal = try RawPeer.messages(in: oversized.readUntilClosed())
        #expect(refusal.count == 1, "the answer to a 4 MiB error header: \(refusal)")
        if case .error(let code, let text)? = refusal.first {
            #expect(code == .oversizedFrame)
            #expect(text.contains("4194304") && text.contains("514"), "\(text)")
        } else {
            Issue.record("the answer to a 4 MiB error header: \(refusal), not an error")
        }
        try server.waitForClosedLines(3)
        #expect(server.closedLines.last?.contains("frame of 4194304 payload bytes, over the limit of 514") == true, "\(server.closedLines)")

        try bench.expectGoodMain(server.endpoint, "after the forged text")
        try bench.expectGoodClip(server.endpoint, share: 1, "after the forged text")

        let log = try server.stop()
        #expect(log.succeeded)
        let bytes = Array(log.error.utf8)
        #expect(!bytes.contains(0x1B), "the server's log holds an ESC byte")
        let lines = log.error.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(!lines.contains { $0.hasPrefix("sharelog: session forged") }, "a forged line in the server's log")
        #expect(!lines.contains { $0.hasPrefix("session forged") })
        let longest = lines.map(\.utf8.count).max() ?? 0
        #expect(longest <= 2_000, "a log line of \(longest) bytes")
        let refusals = lines.filter { $0.contains("\\nsharelog: session forged: ended well;") }
        #expect(refusals.count == 2, "the two refusals, with the text escaped: \(server.closedLines)")
        for line in refusals {
            print("HostileNetworkTests: \(line)")
            #expect(line.hasPrefix("sharelog: session ") && line.contains(": closed: the peer "), "\(line)")
            #expect(line.contains("\\u{1B}[2J"), "the escape, escaped: \(line)")
            // 442 bytes of text, cut at 300: 142 left out.
            #expect(line.contains("(142 more bytes)"), "\(line)")
            #expect(!line.contains(String(repeating: "A", count: 400)) && line.contains(String(repeating: "A", count: 200)), "\(line)")
        }
    }

    // MARK: 4. A log nobody reads

    /// The server's standard error is a 64 KiB pipe nobody reads while
    /// 3,000 bad frames each make a log line: each is still refused, the
    /// good clients are served, and the log says how many lines it dropped.
    @Test func aLogNobodyReadsCostsLinesNotService() throws {
        let bench = try HostileNetworkBench()
        let socket = bench.directory.appending("s")
        let server = try UnreadLogServer(bench.main, ["--listen", "unix:\(socket)", "--key-file", bench.keyFile])
        let endpoint = try Endpoint(parsing: "unix:\(socket)")
        var refused = 0
        for index in 0..<Self.badFrames {
            let peer = try RawPeer(endpoint)
            try? peer.send([0x00, 0x40, 0x00, 0x01])
            let answer = try RawPeer.messages(in: peer.readUntilClosed(timeout: .seconds(20)))
            if answer.count == 1, case .error(.oversizedFrame, _) = answer[0] {
                refused += 1
            } else if refused == index {
                Issue.record("bad frame \(index): the server answered \(answer)")
            }
            peer.close()
        }
        #expect(refused == Self.badFrames)

        try bench.expectGoodMain("unix:\(socket)", "with the log unread")
        try bench.expectGoodClip("unix:\(socket)", share: 4, "with the log unread")
        #expect(server.isRunning)

        let status = try server.stop()
        #expect(status == 0, "the server's exit after SIGTERM")
        let lines = String(decoding: server.log, as: UTF8.self).split(separator: "\n")
        let dropLines = lines.filter { $0.hasPrefix("sharelog: ") && $0.hasSuffix(" log lines were dropped: the log's reader fell behind") }
        let dropped = dropLines.compactMap { Int($0.dropFirst("sharelog: ".count).prefix { $0.isNumber }) }.reduce(0, +)
        let refusalLines = lines.count { $0.contains(": closed: ") && $0.contains("frame of 4194305 payload bytes") }
        print("HostileNetworkTests: log unread: \(refusalLines) refusal lines written, \(dropped) lines dropped in \(dropLines.count) notices")
        #expect(!dropLines.isEmpty, "no line says log lines were dropped; the log's end: \(lines.suffix(5))")
        #expect(dropped > 0)
        // Every refusal is in the log, or counted among the dropped lines.
        #expect(refusalLines + dropped >= Self.badFrames)
    }
}
