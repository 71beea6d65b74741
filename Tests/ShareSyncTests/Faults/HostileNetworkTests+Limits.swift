import Foundation
import Glibc
import ShareLog
import Testing
import TestSupport
@testable import ShareSync

/// The attacks on a server's limits: descriptors, frame sizes, places and
/// what it tells (see `HostileNetworkTests`).
extension HostileNetworkTests {
    // MARK: 5. Descriptors run out

    /// A server limited to 128 descriptors holds 160 silent connections:
    /// the good clients are served, and the log has a few lines about it,
    /// not one per failed accept.
    @Test func runningOutOfDescriptorsKeepsServingAndLogsLittle() throws {
        let bench = try HostileNetworkBench()
        let server = try bench.serve(
            bench.unixListen, ["--handshake-timeout", "120"], launcher: ["/bin/sh", "-c", "ulimit -n \(Self.descriptorLimit) && exec \"$0\" \"$@\""])
        defer { _ = try? server.stop() }
        let limits = try String(contentsOfFile: "/proc/\(server.pid)/limits", encoding: .utf8)
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(separator: " ")
        #expect(openFiles?.dropFirst(3).prefix(2) == ["\(Self.descriptorLimit)", "\(Self.descriptorLimit)"], "\(limits)")
        let endpoint = try HostileNetworkBench.endpoint(server)
        var silent: [SocketChannel] = []
        defer { silent.forEach { $0.close() } }
        for _ in 0..<Self.silentConnections { silent.append(try SocketChannel.connect(to: endpoint, deadline: .now + .seconds(20))) }
        try Deadline.block(until: "the server runs out of descriptors", timeout: .seconds(30), every: .milliseconds(10)) {
            server.pump()
            return server.lines.contains { $0.contains("accept failed") }
        }

        try bench.expectGoodMain(server.endpoint, "out of descriptors")
        try bench.expectGoodClip(server.endpoint, share: 5, "out of descriptors")
        try bench.expectGoodMain(server.endpoint, "out of descriptors, again")

        let log = try server.stop()
        #expect(log.succeeded, "the server after SIGTERM: \(log.error.suffix(1_000))")
        let goodSessions = log.error.split(separator: "\n").filter { ($0.contains(" main ") || $0.contains(" clip ")) && $0.hasPrefix("sharelog: session ") }
        print("HostileNetworkTests: out of descriptors: the good clients' sessions: \(goodSessions)")
        let failures = log.error.split(separator: "\n").filter { $0.contains("accept failed") }
        print("HostileNetworkTests: out of descriptors: \(failures.count) accept-failed lines: \(failures.prefix(3))")
        #expect((1...10).contains(failures.count), "\(failures.count) lines say accept failed")
    }

    // MARK: 6. Oversized handshakes

    /// 48 connections each declare a frame of 4 MiB - 1 and send 1 MiB of
    /// it: each is refused on its header, and the server's peak memory
    /// barely moves; a batch header before the handshake is refused on its
    /// type, its payload never sent.
    @Test func oversizedHandshakeFramesAreRefusedOnTheirHeader() throws {
        let bench = try HostileNetworkBench()
        let server = try bench.serve(bench.unixListen, ["--handshake-timeout", "30"])
        defer { _ = try? server.stop() }
        let endpoint = try HostileNetworkBench.endpoint(server)
        try bench.expectGoodMain(server.endpoint, "before the oversized frames")
        let before = try ProcessMemory(of: server.pid).peakResidentKiB

        let body = HostileNetworkBench.header(length: Self.oversizedLength, type: FrameType.hello.rawValue)
            + [UInt8](repeating: 0xA5, count: Self.oversizedSent)
        var peers: [RawPeer] = []
        for _ in 0..<Self.oversizedHandshakes { peers.append(try RawPeer(endpoint)) }
        // The server closes each as soon as it has refused it: the rest of
        // the megabyte then has nowhere to go.
        for peer in peers { try? peer.channel.write(body, deadline: .now + .seconds(10)) }
        var refused = 0
        for (index, peer) in peers.enumerated() {
            let answer = try RawPeer.messages(in: peer.readUntilClosed())
            if answer.count == 1, case .error(.oversizedFrame, let text) = answer[0], text.contains("\(Self.oversizedLength)"), text.contains("514") {
                refused += 1
            } else {
                Issue.record("oversized frame \(index): the server answered \(answer)")
            }
        }
        let after = try ProcessMemory(of: server.pid).peakResidentKiB
        print("HostileNetworkTests: oversized frames: peak RSS \(before / 1024) MiB before, \(after / 1024) MiB after")
        #expect(refused == Self.oversizedHandshakes)
        #expect(after - before < Self.oversizedGrowthBoundKiB, "the server's peak RSS grew by \(after - before) KiB")

        // A batch's header: its payload would be position 0 and a count of
        // a million events. Only the 9 header bytes are sent.
        let claim: [UInt8] = [UInt8](repeating: 0, count: 8) + [0x00, 0x0F, 0x42, 0x40]
        let batch = try RawPeer(endpoint)
        try batch.send(HostileNetworkBench.header(length: claim.count, type: FrameType.batch.rawValue, claiming: claim))
        let answer = try RawPeer.messages(in: batch.readUntilClosed())
        #expect(answer.count == 1, "the answer to a batch header: \(answer)")
        if case .error(let code, let text)? = answer.first {
            #expect(code == .unexpectedMessage)
            #expect(text.contains("may not come in the handshake"), "\(text)")
        } else {
            Issue.record("the answer to a batch header: \(answer), not an error")
        }
        try server.waitForClosedLines(Self.oversizedHandshakes + 1)
        let lines = server.closedLines
        #expect(lines.count { $0.contains("frame of \(Self.oversizedLength) payload bytes, over the limit of 514") } == Self.oversizedHandshakes)
        #expect(lines.count { $0.contains("batch frame, which may not come in the handshake") } == 1, "\(lines.suffix(2))")
        try bench.expectGoodMain(server.endpoint, "after the oversized frames")
        try bench.expectGoodClip(server.endpoint, share: 0, "after the oversized frames")
    }

    // MARK: 7. Busy speaks TLS

    /// With one main place, held by a follower, a second main over TCP is
    /// told `busy` inside TLS: it reports the server busy, not a server
    /// that does not speak TLS; once the place is free it syncs.
    @Test func busyIsToldInsideTLS() throws {
        let bench = try HostileNetworkBench()
        let server = try bench.serve("tcp:127.0.0.1:0", ["--max-connections", "1"])
        defer { _ = try? server.stop() }
        let endpoint = try HostileNetworkBench.endpoint(server)
        let followerStore = SharelogCLI.forFaults(store: bench.directory.appending("follower"))
        let follower = try followerStore.start(["sync", "--connect", server.endpoint, "--follow", "--key-file", bench.keyFile, "--heartbeat", "1"])
        defer { follower.kill() }
        try Deadline.block(until: "the follower holds the seeded events", timeout: .seconds(60), every: .milliseconds(100)) {
            server.pump()
            guard follower.isRunning else {
                throw HarnessFailure.endedEarly("sync --follow", before: "it caught up", log: String(decoding: follower.errorOutput, as: UTF8.self))
            }
            return (try? followerStore.eventCount()) == HostileNetworkBench.shares
        }

        var request = SyncRequest(endpoint: endpoint)
        request.key = bench.key
        request.directions = .pull
        request.options.busyRetryWindow = .seconds(1)
        let second = try SeedStore.build(at: bench.directory.appending("second")) { store in
            Result { () throws(SyncFailure) in try SyncClient.run(request, store: store) }
        }
        switch second {
        case .success(let summary):
            Issue.record("a second main got in past a pool of one: \(summary)")
        case .failure(let failure):
            print("HostileNetworkTests: the second main: \(failure)")
            #expect(failure.isBusy, "\(failure)")
            #expect("\(failure)".contains("busy"), "\(failure)")
            #expect(!"\(failure)".contains("TLS"), "\(failure)")
        }
        // What a user sees: the CLI, after its own retry window.
        let cli = try SharelogCLI.forFaults(store: bench.directory.appending("third")).run(
            "sync", "--connect", server.endpoint, "--pull", "--key-file", bench.keyFile)
        #expect(cli.status == 1, "\(cli.error)")
        #expect(cli.error.contains("busy") && !cli.error.contains("TLS"), "\(cli.error)")
        #expect(cli.error.contains("the server has 1 main session, the most it holds"), "\(cli.error)")
        // Logged from the server's log thread, after the answer went out.
        try Deadline.block(until: "the server logs both busy refusals; it logged: \(server.lines)", timeout: .seconds(30), every: .milliseconds(5)) {
            server.pump()
            return server.lines.count { $0.contains(": refused: busy (1 main session)") } >= 2
        }

        Glibc.kill(follower.pid, SIGINT)
        let ended = try follower.finish(timeout: .seconds(30))
        #expect(ended.status == 0 && !ended.signaled, "the follower after SIGINT: \(String(decoding: ended.error, as: UTF8.self))")
        request.options.busyRetryWindow = .seconds(10)
        let later = try SeedStore.build(at: bench.directory.appending("second")) { store in
            Result { () throws(SyncFailure) in try SyncClient.run(request, store: store) }
        }
        #expect((try? later.get())?.eventsApplied == HostileNetworkBench.shares, "the second main once the place is free: \(later)")
    }

    // MARK: 8. What a stranger learns

    /// `accepted` tells a main what the server holds of its own events, and
    /// a clip nothing, whatever replica it names; a clip on the TCP port is
    /// turned away to HTTPS.
    @Test func acceptedTellsOnlyAnAdmittedMainAboutItself() throws {
        let bench = try HostileNetworkBench()
        // Replica R makes 5 shares and pushes them to the main store.
        let made = 5
        let origin = SharelogCLI.forFaults(store: bench.directory.appending("origin"))
        _ = try SeedStore.build(at: origin.store) { store in
            try SeedStore.create((0..<made).map { HostileNetworkBench.card(500 + $0) }, in: store)
        }
        let replica = try #require(ReplicaID(try origin.replicaID()))
        let server = try bench.serve(bench.unixListen)
        let endpoint = try HostileNetworkBench.endpoint(server)
        let pushed = try origin.run("sync", "--connect", server.endpoint, "--push", "--key-file", bench.keyFile, "--json")
        try #require(pushed.status == 0, "R's push: \(pushed.error)")
        #expect(pushed.json["eventsSent"] as? Int == made)
        #expect(try bench.main.eventCount() == HostileNetworkBench.shares + made)

        // R itself, with the key: told it holds `made` of its events there.
        let main = try RawPeer(endpoint)
        var handshake = ClientHandshake(
            role: .main, directions: .pull, replica: replica, epoch: Epoch("0000000d-0000-4000-8000-0000000000e2")!, key: bench.key,
            nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        try main.send(HostileNetworkBench.frame(handshake.start))
        for message in try handshake.receive(try #require(try main.receive())) { try main.send(HostileNetworkBench.frame(message)) }
        let acceptance = try #require(try main.receive())
        guard case .accepted(let accepted) = acceptance else {
            Issue.record("R's own session got \(acceptance), not accepted")
            return
        }
        #expect(accepted.heldOfYou == UInt64(made))
        _ = try handshake.receive(acceptance)
        try main.send(HostileNetworkBench.frame(.bye))
        _ = try main.readUntilClosed()

        // A clip naming R, no key: accepted, told nothing.
        let clip = try RawPeer(endpoint)
        try clip.send(HostileNetworkBench.hello(.clip, replica: replica))
        guard case .welcome? = try clip.receive() else {
            Issue.record("the clip naming R was not welcomed")
            return
        }
        let clipAnswer = try clip.receive()
        guard case .accepted(let told)? = clipAnswer else {
            Issue.record("the clip naming R got \(String(describing: clipAnswer)), not accepted")
            return
        }
        #expect(told.heldOfYou == 0, "a clip naming R was told the server holds \(told.heldOfYou) of R's events")
        try clip.send(HostileNetworkBench.frame(.bye))
        _ = try clip.readUntilClosed()
        try bench.expectGoodClip(server.endpoint, share: 1, "the oracle's Unix server")
        let unixLog = try server.stop()
        #expect(unixLog.succeeded)

        // A clip on the TCP port, inside TLS under the key: turned away.
        let tcp = try bench.serve("tcp:127.0.0.1:0")
        defer { _ = try? tcp.stop() }
        let tlsClip = try RawPeer(try HostileNetworkBench.endpoint(tcp), key: bench.key)
        try tlsClip.send(HostileNetworkBench.hello(.clip, replica: replica))
        let refusal = try RawPeer.messages(in: tlsClip.readUntilClosed())
        #expect(refusal.count == 1, "the TCP clip got \(refusal)")
        if case .error(let code, let text)? = refusal.first {
            #expect(code == .roleForbidden)
            #expect(text.contains("HTTPS"), "\(text)")
        } else {
            Issue.record("the TCP clip got \(refusal), not an error")
        }
        try bench.expectGoodMain(tcp.endpoint, "the oracle's TCP server", events: HostileNetworkBench.shares + made)
    }
}
