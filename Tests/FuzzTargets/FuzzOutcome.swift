/// What a fuzz target's code under test answered for one input.
public enum FuzzOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The input was accepted; the text summarises what it decoded to.
    case accepted(String)
    /// The input was refused with a typed error; the text is its description.
    case rejected(String)

    public var description: String {
        switch self {
        case .accepted(let summary): "accepted: \(summary)"
        case .rejected(let reason): "rejected: \(reason)"
        }
    }
}
