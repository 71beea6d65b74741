import Foundation
import ShareLog
import Synchronization
import TestSupport
@testable import ShareSync

/// Bad clients of every `HostilePeer` kind against one server, all at
/// once, each kind on threads of its own, from `start` until `stop`. Each
/// attempt's outcome is counted in `tally`, from the clients' side.
final class HostileCrowd: Sendable {
    /// What the bad clients need to know of the server.
    struct Target: Sendable {
        let endpoint: Endpoint
        /// The server's `--connect` text, for `sharelog sync`.
        let connect: String
        /// A store of the bad clients' own, holding shares they try to push.
        let stranger: SharelogCLI
        /// A key file that is not the server's.
        let otherKeyFile: String
        /// What a push client holding the key sent in a session that got
        /// in once: its hello, and everything after (`HostileLoadBench.recordPush`).
        let replay: (hello: [UInt8], rest: [UInt8])
        let garbageSeed: UInt64
    }

    /// Trickling clients at once.
    static let trickles = 3
    /// Silent connections the flood holds at once: more than the server's
    /// 64 sessions and more than its 256 waiting places.
    static let floodSize = 300

    let tally = HostileTally()
    private let target: Target
    private let stopping = Atomic(false)
    private let running = Atomic(0)
    private let held = Atomic(0)

    init(_ target: Target) { self.target = target }

    /// A main client's hello asking to push, without a key, as bytes.
    static func hello() -> [UInt8] {
        let handshake = ClientHandshake(
            role: .main, directions: .push, replica: ReplicaID("0000000e-0000-4000-8000-000000000001")!,
            epoch: Epoch("0000000e-0000-4000-8000-0000000000e1")!, key: nil, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        return FrameEncoder.encode(handshake.start.frame)
    }

    /// Starts every kind's threads.
    func start() {
        for kind in HostilePeer.allCases {
            for lane in 0..<(kind == .trickle ? Self.trickles : 1) {
                running.add(1, ordering: .relaxed)
                let thread = Thread { [self] in
                    defer { running.subtract(1, ordering: .relaxed) }
                    if kind == .flood { flood() } else { repeatAttempts(kind, lane: lane) }
                }
                thread.name = "hostile-\(kind.rawValue)-\(lane)"
                thread.start()
            }
        }
    }

    /// Stops every thread at its next step and waits until all have ended,
    /// calling `waiting` all along.
    ///
    /// `waiting` must drain the server's log: as the flood ends, the server
    /// logs a line for each of its 300 connections, more than a pipe holds;
    /// a server blocked on that write answers nobody, and the attempts
    /// still under way wait for it until their own deadlines (20 and 30 s).
    func stop(waiting: () -> Void) throws {
        stopping.store(true, ordering: .relaxed)
        try Deadline.block(until: "every bad client's thread has ended", timeout: .seconds(60), every: .milliseconds(20)) {
            waiting()
            return running.load(ordering: .relaxed) == 0
        }
    }

    /// Silent connections the flood holds now.
    var floodHeld: Int { held.load(ordering: .relaxed) }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    private func repeatAttempts(_ kind: HostilePeer, lane: Int) {
        var generator = SeededGenerator(seed: target.garbageSeed &+ UInt64(lane))
        while !isStopping {
            let outcome: HostilePeer.Outcome?
            do {
                switch kind {
                case .garbage: outcome = try garbage(&generator)
                case .oversizedLength: outcome = try oversizedLength()
                case .trickle: outcome = try trickle()
                case .wrongKey: outcome = try wrongKey()
                case .replayedHandshake: outcome = try replayedHandshake()
                case .flood: outcome = nil
                }
            } catch let error as TransportError {
                outcome = .unreached("\(error)")
            } catch {
                outcome = .admitted("the attempt failed on the client's side: \(error)")
            }
            if let outcome { tally.record(kind, outcome) }
        }
    }

    /// Refused unless the server's answer, read to its close, welcomes the client.
    private static func judge(_ answer: [UInt8]) throws -> HostilePeer.Outcome {
        let messages = try RawPeer.messages(in: answer)
        if messages.contains(where: { if case .welcome = $0 { true } else { false } }) { return .admitted("welcomed: \(messages)") }
        return .refused
    }

    /// An answer that is only `error(busy)`: the server had no room, so the
    /// attempt never reached what it was meant to test.
    private static func isBusy(_ answer: [Message]) -> Bool {
        if answer.count == 1, case .error(.busy, _) = answer[0] { true } else { false }
    }

    /// Writes `bytes`; a server that has already closed makes the write
    /// fail, which is no failure of the attempt: its answer is read next.
    private static func sendIgnoringClose(_ peer: RawPeer, _ bytes: [UInt8]) {
        try? peer.send(bytes)
    }

    private func garbage(_ generator: inout SeededGenerator) throws -> HostilePeer.Outcome {
        let bytes = (0..<Int.random(in: 16...512, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let peer = try RawPeer(target.endpoint)
        Self.sendIgnoringClose(peer, bytes)
        return try Self.judge(peer.readUntilClosed())
    }

    private func oversizedLength() throws -> HostilePeer.Outcome {
        let peer = try RawPeer(target.endpoint)
        Self.sendIgnoringClose(peer, [0x7F, 0xFF, 0xFF, 0xFF])
        let answer = try RawPeer.messages(in: peer.readUntilClosed())
        if Self.isBusy(answer) { return .unreached("busy") }
        guard case .error(.oversizedFrame, _)? = answer.first, answer.count == 1 else { return .admitted("answered \(answer), not error(oversizedFrame)") }
        return .refused
    }

    /// A hello one byte a second, until the server answers or closes.
    private func trickle() throws -> HostilePeer.Outcome? {
        let peer = try RawPeer(target.endpoint)
        for byte in Self.hello() {
            if isStopping { return nil }
            Self.sendIgnoringClose(peer, [byte])
            if try peer.channel.waitReadable(orWake: nil, deadline: .now + .seconds(1)) == .readable { break }
        }
        return try Self.judge(peer.readUntilClosed())
    }

    private func wrongKey() throws -> HostilePeer.Outcome {
        let result = try target.stranger.run(
            arguments: ["sync", "--connect", target.connect, "--push", "--key-file", target.otherKeyFile, "--json"])
        if result.status == 0 { return .admitted("sync --push under another key succeeded: \(result.text)") }
        if result.status == 1, result.error.contains("different keys") { return .refused }
        return .unreached("sync exited \(result.status): \(result.error)")
    }

    private func replayedHandshake() throws -> HostilePeer.Outcome {
        let peer = try RawPeer(target.endpoint)
        try peer.send(target.replay.hello)
        let welcome = try peer.receive()
        guard case .welcome? = welcome else { return .unreached("the replayed hello got \(welcome.map { "\($0)" } ?? "no answer"), not a welcome") }
        Self.sendIgnoringClose(peer, target.replay.rest)
        let answer: [Message]
        do { answer = try RawPeer.messages(in: peer.readUntilClosed(timeout: .seconds(10))) } catch is DeadlineExceeded {
            return .admitted("the server kept the replayed session open")
        }
        guard case .error(.authenticationFailed, _)? = answer.first else { return .admitted("answered the replayed session with \(answer)") }
        return .refused
    }

    /// Holds `floodSize` silent connections; every 200 ms, each the server
    /// has closed counts as refused and is opened again.
    private func flood() {
        var connections: [SocketChannel?] = Array(repeating: nil, count: Self.floodSize)
        defer { connections.forEach { $0?.close() } }
        while !isStopping {
            for index in connections.indices {
                if let connection = connections[index] {
                    guard (try? connection.waitReadable(orWake: nil, deadline: .now + .milliseconds(1))) != .timedOut else { continue }
                    tally.record(.flood, .refused)
                    connection.close()
                    connections[index] = nil
                }
                do { connections[index] = try SocketChannel.connect(to: target.endpoint, deadline: .now + .seconds(5)) } catch {
                    tally.record(.flood, .unreached("\(error)"))
                }
            }
            held.store(connections.count { $0 != nil }, ordering: .relaxed)
            Thread.sleep(forTimeInterval: 0.2)
        }
    }
}
