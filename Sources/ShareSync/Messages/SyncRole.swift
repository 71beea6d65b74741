/// What a client asks to be in a session, sent in `hello` (docs/SYNC.md).
public enum SyncRole: UInt8, CaseIterable, Hashable, Sendable {
    /// A full replica: replicates everything, both ways, and must authenticate.
    case main = 1
    /// The public side: fetches the shares it names, and nothing else.
    case clip = 2
}
