/// Why a log entry is corrupt (`ShareLogError.corruptEvent`): its bytes do
/// not decode, or they decode to an event other than the one the store's
/// indexes name there. `description` is a clause, without a capital or a
/// full stop.
public enum CorruptEventReason: Hashable, Sendable, CustomStringConvertible {
    /// The entry's bytes are not an event; the decoding error says where.
    case undecodable(EventDecodingError)
    /// A share state names the entry as a `shareCreated`, and it is not one.
    case notACreation
    /// The state of the share names the entry as its creation, and it is
    /// not that share's creation.
    case notTheCreation(of: RecordName)

    public var description: String {
        switch self {
        case .undecodable(let error):
            "\(error)"
        case .notACreation:
            "a share state names it as a shareCreated, and it is not one"
        case .notTheCreation(let name):
            "the state of share \(name) names it as its creation, and it is not"
        }
    }
}
