import ShareLog

/// Why a relay stopped instead of retrying: the one error
/// `StreamRelay.run` throws (`throws(RelayFailure)`), closed, so a caller
/// switches over its cases. A cause from below (the store, JetStream, a
/// sync session, the key file) stays a value in its case, never a string.
///
/// Connection and cluster errors while the relay runs are waited out with
/// backoff, never thrown; only those of the stream's setup end a run
/// (`.stream`).
public enum RelayFailure: Error, CustomStringConvertible, Sendable {
    /// The stream no longer holds messages this replica has not applied:
    /// they aged out (`MaxAge`) or were purged or deleted while it was away.
    /// Reading on would leave a silent gap; the replica must first take the
    /// sync protocol's snapshot path from a peer (`--snapshot-from`).
    case snapshotRequired(appliedThrough: UInt64, firstHeld: UInt64)
    /// The existing stream does not fit: its subjects do not cover the
    /// relay's, or it keeps messages for less than `StreamSettings.minimumMaxAge`,
    /// or it was deleted and created again while the relay ran.
    case unsuitableStream(String)
    /// A message that is not a relay message; the reason says which check
    /// it failed. Nothing of its batch was written. (An event a local
    /// write would refuse is the store's `.store(.invalidEvent)`.)
    case invalidMessage(sequence: UInt64, subject: String, reason: InvalidRelayMessageReason)
    /// A card sealed or to be sealed for `hour`, more than
    /// `StreamKey.windowHours` after the stream key's `keyHour`: longer
    /// than any share lives, so a clock is wrong. Nothing was written.
    case cardBeyondKeyWindow(hour: Int64, keyHour: Int64)
    /// The store refused a write or read (`ownOriginConflict` for an event
    /// of this replica's own id that it never made, a full disk, …).
    case store(ShareLogError)
    /// JetStream refused or did not answer while the relay found or
    /// created its stream, before it relayed anything. Not retried: the
    /// cluster, its permissions or the stream's settings need a look.
    case stream(JetStreamError)
    /// The snapshot pull from `StreamRelay.Options.snapshotFrom` failed, or
    /// the store's commits could not be watched.
    case sync(SyncFailure)
    /// The stream key file could not be advanced to the current hour.
    case key(StreamKeyringError)

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
        case .stream(let error):
            return "the relay could not set up its stream: \(error)"
        case .sync(let failure):
            return "sync failed: \(failure)"
        case .key(let error):
            return "\(error)"
        }
    }
}

extension RelayFailure {
    /// `body`'s result; a `ShareLogError` it throws becomes `.store`.
    /// Typed throws on both sides: no error is cast or relabelled.
    static func fromStore<R>(_ body: @autoclosure () throws(ShareLogError) -> R) throws(RelayFailure) -> R {
        do { return try body() } catch { throw .store(error) }
    }

    /// `body`'s result; a `JetStreamError` it throws becomes `.stream`,
    /// which the relay's retry loops wait out while it runs.
    static func fromStream<R>(_ body: @autoclosure () throws(JetStreamError) -> R) throws(RelayFailure) -> R {
        do { return try body() } catch { throw .stream(error) }
    }
}
