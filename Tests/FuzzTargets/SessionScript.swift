import ShareSync

/// An `exchange` fuzz input read as a script: which side of a session runs
/// against the real store, and what its scripted peer sends, step by step.
///
/// Byte 0: bits 0–1 the side: 0 and 2 a server (the peer's `hello` says
/// main or clip), 1 a main client, 3 a clip client fetching three names;
/// bit 2 both sides hold a sync key; bits 3–4 a main client's directions
/// (pull, push, both, pull and follow); bit 5 "aligned": no read holds the
/// end of one frame and bytes of the next, so the target knows which frame
/// a failure came from; bits 6–7 how many shares the store holds before
/// (0, 2, 5, 12).
///
/// Then steps, to the end of the input: a byte whose low 4 bits are the
/// step's kind and whose high 4 bits split its bytes into reads of that
/// many bytes (0: one read; 15: one byte a read), then the step's own bytes
/// (missing ones read as 0). Without "aligned", consecutive steps of split
/// 0 go in one read.
struct SessionScript {
    enum Side: Equatable { case server, mainClient, clipClient }

    enum Step: Equatable {
        /// `count` bytes as they are: no frame around them.
        case raw([UInt8])
        /// A frame of type 1…16 around the fuzzer's payload, with a right CRC.
        case frame(type: UInt8, payload: [UInt8])
        case hello(UInt8)
        case welcome(UInt8)
        case authenticate(UInt8)
        case pull(UInt8, after: UInt8)
        case batch(through: UInt8, events: [UInt8])
        case ack(UInt8)
        case caughtUp(UInt8)
        case snapshotRequired(UInt8)
        case snapshotRequest
        case snapshotBatch([UInt8])
        case snapshotEnd(UInt8)
        case fetch([UInt8])
        case records(UInt8)
        case control(UInt8)
    }

    let side: Side
    let keyed: Bool
    let directions: SyncDirections
    let aligned: Bool
    let shares: Int
    let steps: [(step: Step, split: Int)]

    init(_ input: [UInt8]) {
        let header = input.first ?? 0
        side = [.server, .mainClient, .server, .clipClient][Int(header & 3)]
        keyed = header & 4 != 0
        directions = [.pull, .push, .both, [.pull, .follow]][Int(header >> 3 & 3)]
        aligned = header & 32 != 0
        shares = [0, 2, 5, 12][Int(header >> 6)]
        var bytes = Bytes(input.dropFirst())
        var steps: [(step: Step, split: Int)] = []
        while !bytes.isEmpty {
            let code = bytes.next()
            steps.append((step: Self.step(code & 15, &bytes), split: Int(code >> 4)))
        }
        self.steps = steps
    }

    private static func step(_ kind: UInt8, _ bytes: inout Bytes) -> Step {
        switch kind {
        case 0: return .raw(bytes.next(Int(bytes.next())))
        case 1:
            let type = bytes.next() % UInt8(FrameType.allCases.count) + 1
            return .frame(type: type, payload: bytes.next(Int(bytes.next())))
        case 2: return .hello(bytes.next())
        case 3: return .welcome(bytes.next())
        case 4: return .authenticate(bytes.next())
        case 5: return .pull(bytes.next(), after: bytes.next())
        case 6:
            let through = bytes.next()
            return .batch(through: through, events: bytes.next(Int(bytes.next() % 8)))
        case 7: return .ack(bytes.next())
        case 8: return .caughtUp(bytes.next())
        case 9: return .snapshotRequired(bytes.next())
        case 10: return .snapshotRequest
        case 11: return .snapshotBatch(bytes.next(Int(bytes.next() % 8)))
        case 12: return .snapshotEnd(bytes.next())
        case 13: return .fetch(bytes.next(Int(bytes.next() % 4 + 1)))
        case 14: return .records(bytes.next())
        default: return .control(bytes.next())
        }
    }

    /// The input after byte 0, read front to back; past its end, zeros.
    private struct Bytes {
        var rest: ArraySlice<UInt8>
        init(_ bytes: ArraySlice<UInt8>) { rest = bytes }
        var isEmpty: Bool { rest.isEmpty }
        mutating func next() -> UInt8 { rest.popFirst() ?? 0 }
        mutating func next(_ count: Int) -> [UInt8] { (0..<count).map { _ in next() } }
    }
}
