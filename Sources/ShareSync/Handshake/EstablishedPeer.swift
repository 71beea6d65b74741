import ShareLog

/// Who is at the other end once a handshake succeeds, and what was agreed.
public struct EstablishedPeer: Hashable, Sendable {
    public let replica: ReplicaID
    public let epoch: Epoch
    public let role: SyncRole
    /// The directions as the client asked them (from the client's side:
    /// `.pull` means the client receives).
    public let directions: SyncDirections
    public let version: UInt16
    /// For the client: the highest counter of its own origin the server
    /// holds (the claim check). 0 on the server's side.
    public let heldOfYou: UInt64
}
