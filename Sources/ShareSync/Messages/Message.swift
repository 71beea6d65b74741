import ShareLog

/// One message of the sync protocol, carried by one frame of the same type
/// (docs/SYNC.md, "Messages").
///
/// `Message(frame)` reads a frame's payload and `message.frame` writes it.
/// Both are pure. Which message may come when is the sessions' business.
public enum Message: Hashable, Sendable {
    /// Client → server, first: who the client is and what it speaks.
    case hello(Hello)
    /// Server → client, the answer to `hello`.
    case welcome(Welcome)
    /// Client → server: the client's proof of authentication.
    case authenticate(proof: HandshakeProof)
    /// Server → client, the handshake's end: the session has its place.
    case accepted(Accepted)
    /// Either way, from the side that wants events: send the events after
    /// its cursor.
    case pull(Pull)
    /// Events after the receiver's cursor; `through` is the sender's log
    /// position the cursor advances to once they are applied. It may be
    /// past the last event when the sender skipped events the receiver
    /// already holds.
    case batch(through: UInt64, events: EncodedEvents)
    /// The receiver applied everything up to `through` of the sender's log
    /// and committed its cursor.
    case ack(through: UInt64)
    /// The sender has no event after `position` in its log (yet).
    case caughtUp(position: UInt64)
    /// The cursor of the `pull` cannot be served; take a snapshot.
    /// `epoch` is the sender's current epoch, `horizon` its retention
    /// horizon (a log position).
    case snapshotRequired(reason: SnapshotReason, epoch: Epoch, horizon: UInt64)
    /// Send a snapshot.
    case snapshotRequest
    /// Part of a snapshot.
    case snapshotBatch(EncodedEvents)
    /// The snapshot is complete: pull after `resumeAfter` in the log of the
    /// store of `epoch`.
    case snapshotEnd(resumeAfter: UInt64, epoch: Epoch)
    /// Clip → server: the events of these record names (`fetchNames`).
    case fetch([RecordName])
    /// Server → clip: the events of fetched record names, one entry per
    /// name (`fetchNames` of them at most); an unknown name has none.
    case records([Record])
    /// Either way, to show the sender is alive.
    case heartbeat
    /// Either way, before the sender closes the session.
    case error(code: SyncErrorCode, message: String)
    /// Either way: the sender ends the session in good order.
    case bye

    /// How many record names one `fetch`, and one `records`, holds.
    public static let fetchNames: ClosedRange<Int> = 1 ... 64
    /// How many events one `records` entry holds at most (a u8 count).
    public static let eventsPerRecord = Int(UInt8.max)

    /// The type of the frame that carries this message.
    public var type: FrameType {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .authenticate: .authenticate
        case .accepted: .accepted
        case .pull: .pull
        case .batch: .batch
        case .ack: .ack
        case .caughtUp: .caughtUp
        case .snapshotRequired: .snapshotRequired
        case .snapshotRequest: .snapshotRequest
        case .snapshotBatch: .snapshotBatch
        case .snapshotEnd: .snapshotEnd
        case .fetch: .fetch
        case .records: .records
        case .heartbeat: .heartbeat
        case .error: .error
        case .bye: .bye
        }
    }
}
