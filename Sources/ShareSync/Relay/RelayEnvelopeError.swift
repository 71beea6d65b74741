/// Why a relay message's body could not be opened
/// (`RelayEnvelope`). Each description says what is wrong and what to do.
public enum RelayEnvelopeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The body has `count` bytes; its form needs at least `needed`.
    case truncated(count: Int, needed: Int)
    /// The body's version byte is not 1.
    case unknownVersion(UInt8)
    /// The body's form byte is neither 0 (plain) nor 1 (sealed).
    case unknownForm(UInt8)
    /// The sealed body's tag does not verify under the card key of `hour`:
    /// it was sealed under another stream key, or a byte of it changed.
    case authenticationFailed(hour: Int64)

    public var description: String {
        switch self {
        case .truncated(let count, let needed):
            "the relay message body has \(count) bytes, fewer than the \(needed) its form needs: it was cut short; skip it"
        case .unknownVersion(let version):
            "the relay message body has version \(version), and this build reads version 1: update this replica"
        case .unknownForm(let form):
            "the relay message body has form \(form), neither plain (0) nor sealed (1): update this replica"
        case .authenticationFailed(let hour):
            "the sealed relay message of hour \(hour) does not authenticate: it was sealed under another stream key, "
                + "or changed on the way; check that every replica imported the same stream key"
        }
    }
}
