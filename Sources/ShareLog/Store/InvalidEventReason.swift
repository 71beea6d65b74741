import ShareClip

/// Which rule an event from another replica breaks (`ShareLogError.invalidEvent`):
/// each is one a local write keeps, so a peer cannot store what `create`
/// would refuse. `description` is a clause, without a capital or a full stop,
/// except that `invalidCard` ends with the card's own sentences.
public enum InvalidEventReason: Equatable, Sendable, CustomStringConvertible {
    /// The event is `encodedBytes` long encoded, over `limit`.
    case tooLarge(encodedBytes: Int, limit: Int)
    /// Counter 0 names the TTL end of the share its origin names, and the
    /// event is not that.
    case reservedCounter
    /// The share would live `seconds`, outside 1 minute to 30 days
    /// (`ShareStore.ttlRange`).
    case lifetimeOutOfRange(RecordName, seconds: Int64)
    /// The share's card is not one `create` accepts; the `VCardError` says why.
    case invalidCard(RecordName, VCardError)

    public var description: String {
        switch self {
        case .tooLarge(let encodedBytes, let limit):
            "it is \(encodedBytes) bytes encoded, over the limit of \(limit)"
        case .reservedCounter:
            "counter 0 is reserved for the TTL end of the share its origin names"
        case .lifetimeOutOfRange(let name, let seconds):
            "share \(name) would live \(seconds) seconds; a share lives 1 minute to 30 days"
        case .invalidCard(let name, let error):
            "share \(name) carries a card ShareLog refuses. \(error)"
        }
    }
}
