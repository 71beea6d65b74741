/// What a frame carries: byte 4 of its header (docs/SYNC.md, "Frames").
///
/// Each type is one `Message` case of the same name. A byte that is not one
/// of these is refused by `FrameDecoder` as soon as it is read.
public enum FrameType: UInt8, CaseIterable, Hashable, Sendable {
    case hello = 1
    case welcome = 2
    case authenticate = 3
    case pull = 4
    case batch = 5
    case ack = 6
    case caughtUp = 7
    case snapshotRequired = 8
    case snapshotRequest = 9
    case snapshotBatch = 10
    case snapshotEnd = 11
    case fetch = 12
    case records = 13
    case heartbeat = 14
    case error = 15
    case bye = 16
    case accepted = 17
}
