import ShareLog

/// A peer's claim, in `heldOfYou` (of `accepted` or of a `pull`), to hold
/// more events of a replica's own id than that replica made.
///
/// Only two things make one: the replica's store was restored in place
/// from an older copy together with its high-water file (the one restore
/// the high-water file cannot see, docs/SYNC.md "Identity"), or the peer is
/// wrong or lying. Nothing tells the two apart, so the claim is refused
/// before any event is sent, and the replica keeps its id: a peer's word never
/// renews an identity, since every renewal sends every follower a snapshot.
/// The replica's operator, who knows whether it was restored, renews it
/// with `sharelog renew-identity`.
public struct UnmadeEventsClaim: Hashable, Sendable, CustomStringConvertible {
    /// The replica whose events the peer claims.
    public let replica: ReplicaID
    /// The highest counter of `replica`'s own events the peer claims to hold.
    public let held: UInt64
    /// How many events `replica` made under its id.
    public let made: UInt64

    /// The claim, when `held` is more than `made`; nil for a claim the
    /// replica can answer.
    init?(replica: ReplicaID, held: UInt64, made: UInt64) {
        guard held > made else { return nil }
        self.replica = replica
        self.held = held
        self.made = made
    }

    public var description: String {
        "replica \(replica) made \(made) events under its id, and its peer claims to hold \(held) of them: refused before any event was sent, "
            + "and the id kept. If that replica's store was restored in place from an older copy together with its high-water file, "
            + "stop writing to it and run 'sharelog renew-identity' on it; otherwise the other store is wrong (docs/SYNC.md \"Identity\")"
    }
}
