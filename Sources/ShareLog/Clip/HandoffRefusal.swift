/// Why `ShareStore.adopt(from:at:)` refused the store it was given: the
/// handoff wrote nothing to either store. Each case names the refused
/// store by its path; `description` is one line, what went wrong and what
/// to do (docs/CLIP.md, "Handoff").
public enum HandoffRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// `clip open` never showed a share from the store: its `meta` holds
    /// no `last-shown`.
    case neverShownAShare(path: String)
    /// The store made events of its own (shares created or revoked there;
    /// `made` is its `origin-sequence`): they may exist in no other store,
    /// and a handoff leaves every ended share behind.
    case madeEventsOfItsOwn(path: String, made: UInt64)
    /// The store pulled from a peer as a main replica (`sync` or `relay`):
    /// its `cursors` is not empty. A clip's fetch records no cursor.
    case syncedAsMain(path: String)
    /// The clip's store was handed off already, to the store whose replica
    /// id is `to`, at `at`; a clip is handed off once, to one store.
    case handedOffElsewhere(path: String, to: ReplicaID, at: Timestamp)

    public var description: String {
        let keep = "hand off only the store a clip showed its shares from ('clip open'), and keep this one"
        switch self {
        case .neverShownAShare(let path):
            return "\(path) is not a clip's store: 'clip open' never showed a share from it, "
                + "so it may hold what no other store has; nothing was written; \(keep)"
        case .madeEventsOfItsOwn(let path, let made):
            return "\(path) is not a clip's store: it made \(made == 1 ? "1 event" : "\(made) events") of its own "
                + "(shares created or revoked there), which a handoff would leave behind; nothing was written; \(keep)"
        case .syncedAsMain(let path):
            return "\(path) is not a clip's store: it synced with a peer as a main replica; nothing was written; \(keep)"
        case .handedOffElsewhere(let path, let to, let at):
            return "the clip store \(path) was handed off at \(at.iso8601) to another store, replica \(to), "
                + "which holds its live shares; nothing was written; a clip is handed off to one store only: "
                + "run the handoff on that store (it does nothing there), or sync this store from a main replica"
        }
    }
}
