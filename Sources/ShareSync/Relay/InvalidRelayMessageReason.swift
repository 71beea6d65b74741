import ShareLog

/// Which check a stream message failed (`RelayFailure.invalidMessage`),
/// with its cause as a value. `description` is a clause, without a capital
/// or a full stop, except where a cause's own sentence ends it.
public enum InvalidRelayMessageReason: Equatable, Sendable, CustomStringConvertible {
    /// The body is no relay envelope, or its seal does not open.
    case envelope(RelayEnvelopeError)
    /// The envelope's event (the redacted creation, for a sealed card)
    /// does not decode.
    case event(EventDecodingError)
    /// A sealed card came with an event that is not a creation without its card.
    case sealedWithoutRedactedCreation
    /// The card is sealed for `hour`, not the hour its share expires.
    case sealedForOtherHour(Int64)

    public var description: String {
        switch self {
        case .envelope(let error): "\(error)"
        case .event(let error): "its event does not decode: \(error)"
        case .sealedWithoutRedactedCreation: "a sealed card comes with a creation without its card, and this is not one"
        case .sealedForOtherHour(let hour): "its card is sealed for hour \(hour), not for the hour the share expires"
        }
    }
}
