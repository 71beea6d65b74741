import Foundation
import SampleCards
import ShareLog
@testable import ShareSync

/// The other end of an `exchange` fuzz input: turns the script's steps into
/// the bytes of each read, when the session asks for them, so a step can
/// answer what the session wrote (the proof over its nonce, an ack of the
/// batch it sent, the records of the names it asked for).
final class ScriptedPeer {
    static let replica = ReplicaID(uuid: UUID(uuidString: "5c2f8d0e-6a1b-4c3d-8e9f-0a1b2c3d4e5f")!)
    static let epoch = Epoch(uuid: UUID(uuidString: "7d3e9f1a-2b4c-4d5e-9f0a-1b2c3d4e5f60")!)
    static let otherEpoch = Epoch(uuid: UUID(uuidString: "9e4fa02b-3c5d-4e6f-a01b-2c3d4e5f6071")!)
    static let nonce = HandshakeNonce(bytes: (0..<32).map { UInt8($0) })!
    static let key = SyncKey(bytes: Array(repeating: 0x5a, count: 32))
    static let proofKey = key.derived(for: .handshakeProof)
    static let start = Timestamp(milliseconds: 1_800_000_000_000)
    /// Record names the peer holds events of (the last one it does not).
    static let names = ["1e2a7c4d-58b6-4f0e-9a3c-7d5e1f2b3a4c", "2f3b8d5e-69c7-4a1f-8b4d-8e6f2a3c4b5d", "3a4c9e6f-7ad8-4b2a-9c5e-9f7a3b4d5c6e",
                        "4b5daf7a-8be9-4c3b-8d6f-a08b4c5e6d7f", "5c6eb08b-9cfa-4d4c-9e7a-b19c5d6f7e80"].map { RecordName(uuid: UUID(uuidString: $0)!) }

    /// The events a step picks by index (modulo): of the peer's origin,
    /// created with a card, with a photo card, redacted, revoked, of a
    /// newer kind; one of the store's own origin that it never made; one
    /// damaged.
    let pool: [[UInt8]]
    /// Which record name each pool event belongs to, if any.
    private let poolNames: [RecordName?]

    private let script: SessionScript
    private let store: ShareStore
    private var next = 0
    private var queue: [[UInt8]] = []
    /// The hello the peer sent last, for its proof.
    private var hello: Message.Hello?

    init(script: SessionScript, store: ShareStore) {
        self.script = script
        self.store = store
        let week = Self.start.advanced(by: .seconds(7 * 24 * 3600))
        let (a, b, c, d) = (Self.names[0], Self.names[1], Self.names[2], Self.names[3])
        let kinds: [(RecordName?, Event.Kind)] = [
            (a, .shareCreated(ShareCreated(recordName: a, vCard: SampleCard.make(index: 1), createdAt: Self.start, expiresAt: week))),
            (b, .shareCreated(ShareCreated(recordName: b, vCard: SampleCard.make(index: 2, photoBytes: 64), createdAt: Self.start, expiresAt: week))),
            (a, .shareExpired(ShareExpired(recordName: a, at: Self.start, reason: .revoked))),
            (c, .shareCreated(ShareCreated(recordName: c, vCard: nil, createdAt: Self.start, expiresAt: week))),
            (nil, .unknown(code: 7, flags: 0, payload: Array("newer".utf8))),
            (d, .shareCreated(ShareCreated(recordName: d, vCard: SampleCard.make(index: 4), createdAt: Self.start, expiresAt: week))),
        ]
        var pool = kinds.enumerated().map { index, entry in
            EventCodec.encode(Event(id: EventID(origin: Self.replica, counter: UInt64(index + 1)), kind: entry.1))
        }
        let own = Event(id: EventID(origin: store.replicaID, counter: 1_000_000), kind: kinds[0].1)
        var damaged = pool[0]
        damaged[damaged.count / 2] ^= 0x40
        pool += [EventCodec.encode(own), damaged]
        self.pool = pool
        poolNames = kinds.map(\.0) + [kinds[0].0, nil]
    }

    /// The bytes of the session's next read, given what it wrote so far;
    /// nil once the script is done (the peer closes the stream).
    func read(written: [Message]) -> [UInt8]? {
        if queue.isEmpty { fill(written) }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    private func fill(_ written: [Message]) {
        var joined: [UInt8] = []
        while next < script.steps.count {
            let (step, chosen) = script.steps[next]
            next += 1
            // Raw bytes may hold several frames: aligned, they go a byte a read.
            let split = if case .raw = step, script.aligned { 15 } else { chosen }
            let bytes = render(step, written)
            if split == 0, !script.aligned {
                joined += bytes
                continue
            }
            if !joined.isEmpty { queue.append(joined) }
            joined = []
            queue += pieces(of: bytes, split: split)
            if !queue.isEmpty { return }
        }
        if !joined.isEmpty { queue.append(joined) }
    }

    /// The reads of one step's bytes, `split` bytes each (15: one).
    private func pieces(of bytes: [UInt8], split: Int) -> [[UInt8]] {
        let size = split == 0 ? max(1, bytes.count) : split == 15 ? 1 : split
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    private func render(_ step: SessionScript.Step, _ written: [Message]) -> [UInt8] {
        switch step {
        // A welcome comes with the acceptance that follows it, unless bit
        // 4 holds it back: the scripted server does not wait for a proof.
        case .welcome(let byte) where byte & 16 == 0:
            return FrameEncoder.encode(message(step, written).frame) + FrameEncoder.encode(accepted(byte, written).frame)
        case .raw(let bytes): return bytes
        case .frame(let type, let payload): return FrameEncoder.encode(Frame(type: FrameType(rawValue: type)!, payload: payload))
        default: return FrameEncoder.encode(message(step, written).frame)
        }
    }

    private func message(_ step: SessionScript.Step, _ written: [Message]) -> Message {
        switch step {
        case .hello(let byte):
            let hello = Message.Hello(
                versions: byte & 32 == 0 ? SyncProtocol.versions : 1...1, role: byte & 1 == 0 ? .main : .clip,
                directions: SyncDirections(rawValue: byte >> 1 & 7), replica: byte & 16 == 0 ? Self.replica : store.replicaID,
                epoch: Self.epoch, nonce: Self.nonce)
            self.hello = hello
            return .hello(hello)
        case .welcome(let byte):
            return .welcome(welcome(byte, written))
        case .authenticate(let byte):
            let welcome = written.lazy.compactMap { if case .welcome(let welcome) = $0 { welcome } else { nil } }.first
            guard byte & 1 == 0, let hello, var welcome else { return .authenticate(proof: HandshakeProof(bytes: Array(repeating: 1, count: 32))!) }
            welcome.proof = nil
            return .authenticate(proof: HandshakeTranscript(hello: hello, welcome: welcome).proof(.clientProof, under: Self.proofKey))
        case .pull(let byte, let after):
            let epoch: Epoch? = [nil, store.epoch, Self.otherEpoch, nil][Int(byte & 3)]
            return .pull(Message.Pull(
                knownEpoch: epoch, after: UInt64(after), follow: byte & 4 != 0, maxBatchBytes: byte & 8 == 0 ? 1 << 20 : 1,
                heldOfYou: byte & 16 == 0 ? 0 : 1_000_000))
        case .batch(let through, let events): return .batch(through: UInt64(through), events: pick(events))
        case .ack(let byte):
            let last: UInt64 = written.compactMap { message -> UInt64? in if case .batch(let through, _) = message { through } else { nil } }.last ?? 0
            return .ack(through: byte < 128 ? last : last + UInt64(byte - 127))
        case .caughtUp(let position): return .caughtUp(position: UInt64(position))
        case .snapshotRequired(let byte):
            return .snapshotRequired(reason: Message.SnapshotReason(rawValue: byte % 3 + 1)!, epoch: byte & 4 == 0 ? Self.epoch : Self.otherEpoch, horizon: 0)
        case .snapshotRequest: return .snapshotRequest
        case .snapshotBatch(let events): return .snapshotBatch(pick(events))
        case .snapshotEnd(let after): return .snapshotEnd(resumeAfter: UInt64(after), epoch: Self.epoch)
        case .fetch(let picks): return .fetch(picks.map { Self.names[Int($0) % Self.names.count] })
        case .records(let byte): return .records(records(byte, written))
        case .control(let byte):
            switch byte & 3 {
            case 0: return .heartbeat
            case 1: return .bye
            case 2: return .error(code: SyncErrorCode.allCases[Int(byte >> 2) % SyncErrorCode.allCases.count], message: "scripted")
            default: return .error(code: .shuttingDown, message: "scripted")
            }
        case .raw, .frame: return .heartbeat
        }
    }

    /// The welcome to the session's hello. Bits 0-1: its proof (none, the
    /// right one, zeros); bit 2: a version this build does not speak.
    private func welcome(_ byte: UInt8, _ written: [Message]) -> Message.Welcome {
        var welcome = Message.Welcome(
            version: byte & 4 == 0 ? SyncProtocol.versions.upperBound : SyncProtocol.versions.upperBound + 1, replica: Self.replica,
            epoch: Self.epoch, nonce: Self.nonce, proof: nil)
        let sessionHello = written.lazy.compactMap { if case .hello(let hello) = $0 { hello } else { nil } }.first
        if byte & 3 == 1, let sessionHello {
            welcome.proof = HandshakeTranscript(hello: sessionHello, welcome: welcome).proof(.serverProof, under: Self.proofKey)
        } else if byte & 3 == 2 {
            welcome.proof = HandshakeProof(bytes: Array(repeating: 0, count: 32))
        }
        return welcome
    }

    /// The acceptance after `welcome(byte, written)`. Bit 3: a `heldOfYou`
    /// past anything the session's store made; bit 5: a wrong proof.
    private func accepted(_ byte: UInt8, _ written: [Message]) -> Message {
        let held: UInt64 = byte & 8 == 0 ? 0 : 1_000_000
        var welcome = welcome(byte, written)
        welcome.proof = nil
        let sessionHello = written.lazy.compactMap { if case .hello(let hello) = $0 { hello } else { nil } }.first
        let proof = byte & 32 != 0 ? HandshakeProof(bytes: Array(repeating: 0, count: 32))
            : sessionHello.map { HandshakeTranscript(hello: $0, welcome: welcome).proof(.acceptance, under: Self.proofKey, heldOfYou: held) }
        return .accepted(Message.Accepted(heldOfYou: held, proof: proof))
    }

    private func pick(_ indices: [UInt8]) -> EncodedEvents {
        EncodedEvents(encoded: indices.map { pool[Int($0) % pool.count] })
    }

    /// The answer to the last fetch the session wrote: each name's pool
    /// events. Bit 0 reverses the names, bit 1 answers only the first, bit
    /// 2 adds a name that was not asked for.
    private func records(_ byte: UInt8, _ written: [Message]) -> [Message.Record] {
        var asked = written.compactMap { if case .fetch(let names) = $0 { names } else { nil } }.last ?? [Self.names[4]]
        if byte & 1 != 0 { asked.reverse() }
        if byte & 2 != 0 { asked = Array(asked.prefix(1)) }
        if byte & 4 != 0, asked.count < Message.fetchNames.upperBound { asked.append(Self.names[4]) }
        return asked.map { name in
            Message.Record(name: name, events: EncodedEvents(encoded: pool.indices.filter { index in poolNames[index] == name && index < 6 }.map { pool[$0] }))
        }
    }
}
