import Foundation
import ShareLog
@testable import ShareSync

/// A `session` fuzz input: the established session `SessionFuzzTarget`
/// sets up, then the bytes it takes the peer's messages and the driver's
/// answers from, front to back (missing bytes read as 0).
///
/// - byte 0: bit 0 the side (client, server); bit 1 the role (main,
///   clip); bits 2–4 a main's directions as the client asked them (pull,
///   push, follow; a clip has none); bits 5–6 this side's `maxBatchBytes`
///   (1 MiB, 1, 4 KiB, past a u32).
/// - byte 1, read when this side receives events: bits 0–1 its cursor on
///   the peer (none, in the peer's epoch, in an older epoch, in the peer's
///   epoch); bits 2–4 the cursor's position; bits 5–7 `heldOfPeer`.
/// - byte 2: a clip client's names to fetch, 0–69 of them (taken in turn
///   from `names`: past 64 it takes two fetches); for a main, this store's
///   log (`SessionFuzzLog`): bits 0–3 its end, bits 4–5 a trim through 0,
///   2, 4 or 6 (at most the end).
/// - then stimuli, one after another: a byte `k`; `k % 18 == 0` is other
///   processes at work on this store, commits or a trim, as the next byte
///   says (`SessionFuzzLog.work(_:)`); otherwise a message of type
///   `k % 18` (its `FrameType` raw value), its fields from the next bytes
///   (`message(_:asked:)`).
/// - the driver's answers are read from the stream where the machine asks
///   for them: a byte for each read of the log or of a snapshot
///   (`SessionFuzzLog`), a byte for each claim check (bits 0–1: how many events this side made).
struct SessionFuzzInput {
    /// What comes to the machine next, when it has asked for nothing.
    enum Stimulus {
        case message(Message)
        /// Other processes committed to this store's log, or trimmed it
        /// (`SessionFuzzLog.work(_:)`'s choice byte).
        case work(UInt8)
    }

    static let peerReplica = ReplicaID(uuid: UUID(uuidString: "5c2f8d0e-6a1b-4c3d-8e9f-0a1b2c3d4e5f")!)
    /// The peer's store's epoch, from the handshake.
    static let peerEpoch = Epoch(uuid: UUID(uuidString: "7d3e9f1a-2b4c-4d5e-9f0a-1b2c3d4e5f60")!)
    /// An epoch neither store has now (a cursor from before a restore).
    static let otherEpoch = Epoch(uuid: UUID(uuidString: "9e4fa02b-3c5d-4e6f-a01b-2c3d4e5f6071")!)
    static let names = (0..<8).map { RecordName(uuid: UUID(uuidString: String(format: "1e2a7c4d-58b6-4f0e-9a3c-7d5e1f2b3a%02x", $0))!) }
    static let batchLimits = [1 << 20, 1, 4096, Int(UInt32.max) + 1]
    static let pullLimits: [UInt32] = [1 << 20, 0, 1, .max]

    let side: SessionMachine.Side
    let peer: EstablishedPeer
    let maxBatchBytes: Int
    /// What the driver reads for a receiving side, nil for the others.
    let receiving: (cursor: PeerCursor?, heldOfPeer: UInt64)?
    let names: [RecordName]
    let log: SessionFuzzLog
    private var rest: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) {
        rest = bytes[...]
        let header = rest.popFirst() ?? 0
        let cursorByte = rest.popFirst() ?? 0
        let sizes = rest.popFirst() ?? 0
        side = header & 1 == 0 ? .client : .server
        let role: SyncRole = header & 2 == 0 ? .main : .clip
        peer = EstablishedPeer(
            replica: Self.peerReplica, epoch: Self.peerEpoch, role: role,
            directions: role == .clip ? [] : SyncDirections(rawValue: header >> 2 & 7), version: 2, heldOfYou: 0)
        maxBatchBytes = Self.batchLimits[Int(header >> 5 & 3)]
        if ReferenceSession.receives(side, peer) {
            let epoch: Epoch? = [nil, Self.peerEpoch, Self.otherEpoch, Self.peerEpoch][Int(cursorByte & 3)]
            let cursor = epoch.map { PeerCursor(peer: Self.peerReplica, epoch: $0, position: UInt64(cursorByte >> 2 & 7), lastSeen: Timestamp(milliseconds: 0)) }
            receiving = (cursor, UInt64(cursorByte >> 5))
        } else {
            receiving = nil
        }
        names = side == .client && role == .clip ? (0..<Int(sizes) % 70).map { Self.names[$0 % Self.names.count] } : []
        let end = UInt64(sizes & 15)
        log = SessionFuzzLog(end: end, trimmedThrough: min(end, UInt64(sizes >> 4 & 3) * 2))
    }

    /// The next byte; 0 past the end.
    mutating func byte() -> UInt8 { rest.popFirst() ?? 0 }

    /// The next stimulus; nil at the end of the input. `asked` is the last
    /// fetch the machine sent, which a `records` may answer.
    mutating func stimulus(asked: [RecordName]) -> Stimulus? {
        guard let kind = rest.popFirst() else { return nil }
        guard kind % 18 != 0, let type = FrameType(rawValue: kind % 18) else { return .work(byte()) }
        return .message(message(type, asked: asked))
    }

    /// A message of `type` built from the next bytes. Positions are small
    /// (a nibble; 15 stands for the largest u64) so that they collide with
    /// the cursors and the log's.
    mutating func message(_ type: FrameType, asked: [RecordName]) -> Message {
        let epochs: [Epoch?] = [nil, SessionFuzzLog.epoch, Self.otherEpoch, SessionFuzzLog.epoch]
        let nonce = HandshakeNonce(bytes: (0..<32).map { UInt8($0) })!
        let proof = HandshakeProof(bytes: Array(repeating: 0x5a, count: 32))!
        switch type {
        case .hello:
            let b = byte()
            return .hello(Message.Hello(
                versions: 2...2, role: b & 1 == 0 ? .main : .clip, directions: SyncDirections(rawValue: b >> 1 & 7), replica: Self.peerReplica,
                epoch: Self.peerEpoch, nonce: nonce))
        case .welcome:
            return .welcome(Message.Welcome(version: 2, replica: Self.peerReplica, epoch: Self.peerEpoch, nonce: nonce, proof: byte() & 1 == 0 ? nil : proof))
        case .authenticate: return .authenticate(proof: proof)
        case .accepted:
            let b = byte()
            return .accepted(Message.Accepted(heldOfYou: UInt64(b >> 1), proof: b & 1 == 0 ? nil : proof))
        case .pull:
            // Flags: bits 0–1 the epoch the cursor knows, bit 2 follow, bits
            // 3–4 the batch limit, bits 6–7 heldOfYou; then the position.
            let flags = byte()
            return .pull(Message.Pull(
                knownEpoch: epochs[Int(flags & 3)], after: Self.position(byte()), follow: flags & 4 != 0,
                maxBatchBytes: Self.pullLimits[Int(flags >> 3 & 3)], heldOfYou: UInt64(flags >> 6)))
        case .batch:
            let b = byte()
            return .batch(through: Self.position(b), events: Self.peerEvents(b >> 4))
        case .ack: return .ack(through: UInt64(byte() % 32))
        case .caughtUp: return .caughtUp(position: Self.position(byte()))
        case .snapshotRequired:
            let b = byte()
            return .snapshotRequired(
                reason: Message.SnapshotReason(rawValue: b % 3 + 1)!, epoch: b & 4 == 0 ? Self.peerEpoch : Self.otherEpoch, horizon: UInt64(b >> 3))
        case .snapshotRequest: return .snapshotRequest
        case .snapshotBatch: return .snapshotBatch(Self.peerEvents(byte()))
        case .snapshotEnd:
            let b = byte()
            return .snapshotEnd(resumeAfter: Self.position(b), epoch: b & 16 == 0 ? Self.peerEpoch : Self.otherEpoch)
        case .fetch:
            let b = byte()
            return .fetch((0..<Int(b & 63) + 1).map { Self.names[($0 + Int(b >> 6)) % Self.names.count] })
        case .records: return .records(records(asked: asked))
        case .heartbeat: return .heartbeat
        case .error: return .error(code: SyncErrorCode.allCases[Int(byte()) % SyncErrorCode.allCases.count], message: "from the fuzzer")
        case .bye: return .bye
        }
    }

    /// A `records`: byte 0 bit 7 answers the names of `asked` (bit 6: all
    /// of them; otherwise bits 0–5 + 1 of them, then more names if that is
    /// past `asked`), else bits 0–5 + 1 names in turn; byte 1 % 4 events a
    /// record, the last of them one event fewer.
    private mutating func records(asked: [RecordName]) -> [Message.Record] {
        let b = byte()
        let events = Int(byte() % 4)
        let count = b & 0xC0 == 0xC0 && !asked.isEmpty ? asked.count : Int(b & 63) + 1
        let names = (0..<count).map { index in b & 0x80 != 0 && index < asked.count ? asked[index] : Self.names[index % Self.names.count] }
        return names.enumerated().map { index, name in
            Message.Record(name: name, events: Self.peerEvents(UInt8(max(0, events - (index == count - 1 ? 1 : 0)))))
        }
    }

    /// A nibble as a log position; 15 is the largest.
    private static func position(_ byte: UInt8) -> UInt64 {
        byte & 15 == 15 ? .max : UInt64(byte & 15)
    }

    /// `count % 4` events of the peer's, as the machine sees them: bytes
    /// it never decodes (the driver does, when it applies them).
    private static func peerEvents(_ count: UInt8) -> EncodedEvents {
        EncodedEvents(encoded: (0..<count % 4).map { [0x50, $0] })
    }
}
