import Foundation
import ShareLog
import Synchronization
import TestSupport
@testable import ShareSync

/// Bad clients of every `HostilePeer` kind that makes sense over the
/// server's transport against one server, all at once, each kind on
/// threads of its own, from `start` until `stop`. Each attempt's outcome
/// is counted in `tally`, from the clients' side.
final class HostileCrowd: Sendable {
    /// What the bad clients need to know of the server.
    struct Target: Sendable {
        let transport: HostileNetworkBench.Transport
        let endpoint: Endpoint
        /// The server's `--connect` text, for `sharelog sync`.
        let connect: String
        /// A store of the bad clients' own, holding shares they try to push.
        let stranger: SharelogCLI
        /// A key file that is not the server's.
        let otherKeyFile: String
        /// What a push client holding the key sent in a session that got
        /// in once: its hello, and everything after (`HostileLoadBench.recordPush`).
        /// Unix socket only.
        let replay: (hello: [UInt8], rest: [UInt8])?
        let garbageSeed: UInt64
        /// The server's key, which the clips on the TCP port hold too.
        let key: SyncKey
        /// A TLS ClientHello under the key, for the trickle on TCP
        /// (`HostileTLS.clientHello(under:)`).
        let clientHello: [UInt8]
    }

    /// Trickling clients at once.
    static let trickles = 3
    /// Idle clips at once: half the server's 16 clip places, so the good
    /// clips share the rest.
    static let idleClips = 8
    /// The start of every idle clip's replica id, by which the server's log
    /// lines of idle clips are told from the good clips'.
    static let idleClipPrefix = "1d1ec119-0000-4000-8000-"
    /// The replica id every clip on the TCP port names: a session of one
    /// in the server's log would be known by it.
    static let tcpClipReplica = "7c9c11b0-0000-4000-8000-000000000001"
    /// Clips trying the TCP port at once. Each attempt is a whole TLS
    /// handshake, so two keep the refusal busy without taking the two
    /// cores from the good mains.
    static let tcpClips = 2
    /// Connections the one-byte flood holds at once: more than the
    /// server's 64 sessions.
    static let oneByteFloodSize = 100
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

    /// The kinds at work: those that make sense over the target's transport.
    var kinds: [HostilePeer] { HostilePeer.kinds(over: target.transport) }

    /// Starts every kind's threads.
    func start() {
        for kind in kinds {
            let lanes = switch kind {
            case .trickle: Self.trickles
            case .idleClip: Self.idleClips
            case .clipOnTCP: Self.tcpClips
            default: 1
            }
            for lane in 0..<lanes {
                running.add(1, ordering: .relaxed)
                let thread = Thread { [self] in
                    defer { running.subtract(1, ordering: .relaxed) }
                    switch kind {
                    case .flood: flood(kind, holding: Self.floodSize, sending: nil)
                    case .oneByteFlood:
                        // The first byte of a frame's length, or of a TLS record.
                        flood(kind, holding: Self.oneByteFloodSize, sending: target.transport == .tcp ? HostileTLS.handshake : 0x00)
                    default: repeatAttempts(kind, lane: lane)
                    }
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
                case .idleClip: outcome = try idleClip()
                case .clipOnTCP: outcome = try clipOnTCP()
                case .flood, .oneByteFlood: outcome = nil
                }
            } catch let error as TransportError {
                outcome = .unreached("\(error)")
            } catch {
                outcome = .admitted("the attempt failed on the client's side: \(error)")
            }
            if let outcome { tally.record(kind, outcome) }
        }
    }

    /// Refused unless the server's answer, read to its close, welcomes the
    /// client; on TCP, refused only when it is nothing or TLS alerts
    /// (`HostileTLS.judge`).
    private func judge(_ answer: [UInt8]) throws -> HostilePeer.Outcome {
        if target.transport == .tcp { return HostileTLS.judge(answer) }
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
        return try judge(peer.readUntilClosed())
    }

    /// Refused on the length alone: `error(oversizedFrame)`, or on TCP a
    /// `record_overflow` alert, and the connection closed.
    private func oversizedLength() throws -> HostilePeer.Outcome {
        let peer = try RawPeer(target.endpoint)
        if target.transport == .tcp {
            Self.sendIgnoringClose(peer, HostileTLS.oversizedRecordHeader)
            return try HostileTLS.judge(peer.readUntilClosed(), alerting: HostileTLS.recordOverflow)
        }
        Self.sendIgnoringClose(peer, [0x7F, 0xFF, 0xFF, 0xFF])
        let answer = try RawPeer.messages(in: peer.readUntilClosed())
        if Self.isBusy(answer) { return .unreached("busy") }
        guard case .error(.oversizedFrame, _)? = answer.first, answer.count == 1 else { return .admitted("answered \(answer), not error(oversizedFrame)") }
        return .refused
    }

    /// A hello (on TCP, a TLS ClientHello) one byte a second, until the
    /// server answers or closes.
    private func trickle() throws -> HostilePeer.Outcome? {
        let peer = try RawPeer(target.endpoint)
        for byte in target.transport == .tcp ? target.clientHello : Self.hello() {
            if isStopping { return nil }
            Self.sendIgnoringClose(peer, [byte])
            if try peer.channel.waitReadable(orWake: nil, deadline: .now + .seconds(1)) == .readable { break }
        }
        return try judge(peer.readUntilClosed())
    }

    private func wrongKey() throws -> HostilePeer.Outcome {
        let result = try target.stranger.run(
            arguments: ["sync", "--connect", target.connect, "--push", "--key-file", target.otherKeyFile, "--json"])
        if result.status == 0 { return .admitted("sync --push under another key succeeded: \(result.text)") }
        // The sync handshake's proofs, or TLS's PSK binder on TCP.
        let refusal = target.transport == .tcp ? "the peer does not hold this key" : "different keys"
        if result.status == 1, result.error.contains(refusal) { return .refused }
        return .unreached("sync exited \(result.status): \(result.error)")
    }

    private func replayedHandshake() throws -> HostilePeer.Outcome {
        guard let replay = target.replay else { return .unreached("no recorded session to replay") }
        let peer = try RawPeer(target.endpoint)
        try peer.send(replay.hello)
        let welcome = try peer.receive()
        guard case .welcome? = welcome else { return .unreached("the replayed hello got \(welcome.map { "\($0)" } ?? "no answer"), not a welcome") }
        Self.sendIgnoringClose(peer, replay.rest)
        let answer: [Message]
        do { answer = try RawPeer.messages(in: peer.readUntilClosed(timeout: .seconds(10))) } catch is DeadlineExceeded {
            return .admitted("the server kept the replayed session open")
        }
        guard case .error(.authenticationFailed, _)? = answer.first else { return .admitted("answered the replayed session with \(answer)") }
        return .refused
    }

    /// A clip that finishes its handshake, then sends only heartbeats, every
    /// 500 ms, until the server ends it: refused when the server ends it
    /// for idleness or turns it away as busy; admitted when the server
    /// tells it anything of a replica, or keeps it three idle timeouts.
    private func idleClip() throws -> HostilePeer.Outcome? {
        let peer = try RawPeer(target.endpoint)
        let suffix = String(UInt64.random(in: 0..<(1 << 48)), radix: 16)
        let replica = ReplicaID(Self.idleClipPrefix + String(repeating: "0", count: 12 - suffix.count) + suffix)!
        let hello = ClientHandshake(
            role: .clip, directions: [], replica: replica, epoch: Epoch(uuid: UUID()), key: nil,
            nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        try peer.send(FrameEncoder.encode(hello.start.frame))
        let first = try peer.receive()
        if case .error(.busy, _)? = first { return .refused }
        guard case .welcome? = first else { return .unreached("the idle clip's hello got \(first.map { "\($0)" } ?? "no answer")") }
        let second = try peer.receive()
        if case .error(.busy, _)? = second { return .refused }
        guard case .accepted(let accepted)? = second else { return .unreached("the idle clip got \(second.map { "\($0)" } ?? "no answer"), not accepted") }
        guard accepted.heldOfYou == 0 else { return .admitted("a clip was told heldOfYou \(accepted.heldOfYou)") }
        let admittedAt = ContinuousClock.now
        while !isStopping {
            Self.sendIgnoringClose(peer, FrameEncoder.encode(Message.heartbeat.frame))
            if try peer.channel.waitReadable(orWake: nil, deadline: .now + .milliseconds(500)) == .readable {
                let answer = try RawPeer.messages(in: peer.readUntilClosed())
                guard answer.contains(where: { if case .error(.idle, _) = $0 { true } else { false } }) else {
                    return .admitted("an idle clip was answered \(answer), not error(idle)")
                }
                return .refused
            }
            if ContinuousClock.now - admittedAt > .seconds(3 * HostileLoadBench.clipIdleTimeoutSeconds) {
                return .admitted("the server kept a clip that asked for nothing for three idle timeouts")
            }
        }
        return nil
    }

    /// A clip on the TCP port, inside TLS under the key: refused when its
    /// hello is answered with `error(roleForbidden)`, pointing at HTTPS,
    /// and nothing else before the close.
    private func clipOnTCP() throws -> HostilePeer.Outcome {
        let peer = try RawPeer(target.endpoint, key: target.key)
        let hello = ClientHandshake(
            role: .clip, directions: [], replica: ReplicaID(Self.tcpClipReplica)!, epoch: Epoch(uuid: UUID()), key: nil,
            nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        Self.sendIgnoringClose(peer, FrameEncoder.encode(hello.start.frame))
        let answer = try RawPeer.messages(in: peer.readUntilClosed())
        guard answer.count == 1, case .error(.roleForbidden, let text) = answer[0], text.contains("HTTPS") else {
            return .admitted("a clip on the TCP port was answered \(answer), not error(roleForbidden)")
        }
        return .refused
    }

    /// Holds `size` connections that each sent `byte` (none: nothing);
    /// every 200 ms, each the server has closed counts as refused and is
    /// opened again.
    private func flood(_ kind: HostilePeer, holding size: Int, sending byte: UInt8?) {
        var connections: [SocketChannel?] = Array(repeating: nil, count: size)
        defer { connections.forEach { $0?.close() } }
        while !isStopping {
            for index in connections.indices {
                if let connection = connections[index] {
                    guard (try? connection.waitReadable(orWake: nil, deadline: .now + .milliseconds(1))) != .timedOut else { continue }
                    tally.record(kind, .refused)
                    connection.close()
                    connections[index] = nil
                }
                do {
                    let connection = try SocketChannel.connect(to: target.endpoint, deadline: .now + .seconds(5))
                    if let byte { try? connection.write([byte], deadline: .now + .seconds(5)) }
                    connections[index] = connection
                } catch {
                    tally.record(kind, .unreached("\(error)"))
                }
            }
            if kind == .flood { held.store(connections.count { $0 != nil }, ordering: .relaxed) }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }
}
