import ShareLog

/// Which frame types a receiver accepts now, and the largest payload of
/// each: checked by `FrameDecoder` on the 5 header bytes, before any of the
/// payload is buffered or decoded.
///
/// A session's phase decides its limits. Before the handshake ends only
/// the few small handshake messages may come (`handshake(expecting:)`), so
/// a stranger can make the server buffer a few hundred bytes, not a
/// 4 MiB frame, and cannot make it decode a batch of a million events.
/// A clip's session takes fetches and nothing large (`clip`). A main's
/// takes every type up to the session's frame limit (`all(upTo:)`).
public struct FrameLimits: Hashable, Sendable {
    /// The largest payload of each type, by raw value; nil: not allowed now.
    private var largest: [Int?]
    /// What the receiver is doing, for the error that names a refused type.
    public let phase: String
    /// The largest payload of any type accepted now.
    public let largestPayload: Int

    /// Every type, each up to `maxPayloadBytes`.
    public static func all(upTo maxPayloadBytes: Int) -> FrameLimits {
        FrameLimits(phase: "in session", FrameType.allCases.map { ($0, maxPayloadBytes) })
    }

    /// A server waiting for `expected` (`hello`, then `authenticate`):
    /// that message, and an `error` or `bye` from a client that gives up,
    /// each at its largest legal size.
    public static func handshake(expecting expected: FrameType) -> FrameLimits {
        FrameLimits(phase: "in the handshake, waiting for \(expected)", [(expected, handshakeSizes[expected] ?? 0), (.error, maxErrorBytes), (.bye, 0)])
    }

    /// A server's side of a clip session: fetches of at most
    /// `Message.fetchNames` names, heartbeats, an `error` and `bye`.
    public static let clip = FrameLimits(
        phase: "in a clip session",
        [(.fetch, 2 + Message.fetchNames.upperBound * RecordName.wireSize), (.heartbeat, 0), (.error, maxErrorBytes), (.bye, 0)])

    /// The most bytes of an `error` message taken when nothing larger may
    /// come: its code and a few hundred bytes of text.
    public static let maxErrorBytes = 2 + 512

    /// The exact payload sizes of the handshake's client messages.
    private static let handshakeSizes: [FrameType: Int] = [
        .hello: SyncProtocol.magic.count + 2 + 2 + 1 + 1 + ReplicaID.wireSize + Epoch.wireSize + HandshakeNonce.size,
        .authenticate: HandshakeProof.size,
    ]

    private init(phase: String, _ allowed: [(FrameType, Int)]) {
        self.phase = phase
        largest = Array(repeating: nil, count: Int(FrameType.allCases.map(\.rawValue).max()!) + 1)
        for (type, bytes) in allowed { largest[Int(type.rawValue)] = bytes }
        largestPayload = allowed.map(\.1).max() ?? 0
    }

    /// The largest payload of `type` accepted now; nil when `type` may not come.
    public func largestPayload(of type: FrameType) -> Int? { largest[Int(type.rawValue)] }
}
