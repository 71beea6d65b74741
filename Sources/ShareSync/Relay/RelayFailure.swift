import ShareLog

/// Why a relay stopped instead of retrying.
public enum RelayFailure: Error, CustomStringConvertible, Sendable {
    /// The stream no longer holds messages this replica has not applied:
    /// they aged out (`MaxAge`) or were purged or deleted while it was away.
    /// Reading on would leave a silent gap; the replica must first take the
    /// sync protocol's snapshot path from a peer (`--snapshot-from`).
    case snapshotRequired(appliedThrough: UInt64, firstHeld: UInt64)
    /// The existing stream does not fit: its subjects do not cover the
    /// relay's, or it keeps messages for less than `StreamSettings.minimumMaxAge`.
    case unsuitableStream(String)
    /// A message that is not a relay message, or an event a local write
    /// would refuse. Nothing of its batch was written.
    case invalidMessage(sequence: UInt64, subject: String, reason: String)
    /// A card sealed or to be sealed for `hour`, more than
    /// `StreamKey.windowHours` after the stream key's `keyHour`: longer
    /// than any share lives, so a clock is wrong. Nothing was written.
    case cardBeyondKeyWindow(hour: Int64, keyHour: Int64)
    /// The store refused a write or read.
    case store(ShareLogError)

    public var description: String {
        switch self {
        case .snapshotRequired(let applied, let first):
            return "snapshot required: this replica applied the stream through sequence \(applied), but the stream's oldest message is "
                + "\(first): messages \(applied + 1)…\(first - 1) aged out or were removed. Bootstrap from a peer replica with "
                + "`sharelog relay … --snapshot-from ENDPOINT` (docs/SCALING.md \"A replica away too long\")."
        case .unsuitableStream(let reason):
            return "the stream does not fit a relay: \(reason)"
        case .invalidMessage(let sequence, let subject, let reason):
            return "stream message \(sequence) on \(subject) is refused: \(reason). Nothing of its batch was applied; "
                + "remove the message from the stream (for example `nats stream rmm`) once you know where it came from"
        case .cardBeyondKeyWindow(let hour, let keyHour):
            return "a card expires in hour \(hour), more than \(StreamKey.windowHours) hours after the stream key's hour \(keyHour), "
                + "longer than any share lives: check the clocks of the replicas and of the share's creator"
        case .store(let error):
            return "\(error)"
        }
    }
}
