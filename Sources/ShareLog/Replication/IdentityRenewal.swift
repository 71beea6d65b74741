/// A store took a new replica id and epoch (`ShareStore.renewIdentity`),
/// because it may be a copy of another store, or a store restored from a
/// backup, whose old id its peers already hold events of.
public struct IdentityRenewal: Hashable, Sendable {
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// The store's data file is not the file the store was last opened
        /// in (another inode): it was copied, moved or restored.
        case fileChanged
        /// A peer holds events of this replica's id that this store never
        /// made: it was restored from an older copy.
        case peerHoldsNewerEvents(peerHolds: UInt64, madeHere: UInt64)
        /// The embedding application asked for it.
        case requested

        public var description: String {
            switch self {
            case .fileChanged: "the data file is not the one this store was last opened in (copied, moved or restored)"
            case .peerHoldsNewerEvents(let held, let made):
                "a peer holds \(held) events of this replica's id, and this store made \(made) (restored from an older copy)"
            case .requested: "requested"
            }
        }
    }

    public let previousReplica: ReplicaID
    public let replica: ReplicaID
    public let epoch: Epoch
    public let reason: Reason
}
