/// A store took a new replica id and epoch (`ShareStore.renewIdentity`),
/// because it may be a copy of another store, or a store restored from a
/// backup, whose old id and log positions its peers already hold.
public struct IdentityRenewal: Hashable, Sendable {
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// The store's data file is not the file the store was last opened
        /// in (another inode): it was copied, moved or restored.
        case fileChanged
        /// The log ends at `logEnd`, before position `reached`, which the
        /// high-water file says may have left the store: `data.mdb` was
        /// overwritten in place with an older copy.
        case restoredInPlace(reached: UInt64, logEnd: UInt64)
        /// The high-water file records another epoch than the data file's,
        /// or none that can be read: it cannot vouch that the data file was
        /// not restored (docs/SYNC.md "Identity").
        case highWaterMismatch
        /// The embedding application or its operator asked for it
        /// (`sharelog renew-identity`).
        case requested

        public var description: String {
            switch self {
            case .fileChanged: "the data file is not the one this store was last opened in (copied, moved or restored)"
            case .restoredInPlace(let reached, let end):
                "the log ends at position \(end), and positions up to \(reached) may have left this store (data.mdb restored in place from an older copy)"
            case .highWaterMismatch:
                "the high-water file does not vouch for this data file (another epoch, or damaged): it may have been restored in place"
            case .requested: "requested"
            }
        }
    }

    public let previousReplica: ReplicaID
    public let replica: ReplicaID
    public let epoch: Epoch
    public let reason: Reason
}
