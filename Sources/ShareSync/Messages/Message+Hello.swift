import ShareLog

extension Message {
    /// The client's first message: `SyncProtocol.magic`, then these fields.
    public struct Hello: Hashable, Sendable {
        /// The protocol versions the client speaks (u16 min, u16 max on the wire).
        public var versions: ClosedRange<UInt16>
        /// What the client asks to be in the session.
        public var role: SyncRole
        /// Which ways events flow; none for a clip, which only fetches.
        public var directions: SyncDirections
        /// The client store's replica id.
        public var replica: ReplicaID
        /// The client store's epoch.
        public var epoch: Epoch
        /// Fresh random bytes for this session's proof.
        public var nonce: HandshakeNonce

        /// A hello with these fields; the magic is added on the wire.
        public init(
            versions: ClosedRange<UInt16>, role: SyncRole, directions: SyncDirections, replica: ReplicaID, epoch: Epoch, nonce: HandshakeNonce
        ) {
            self.versions = versions
            self.role = role
            self.directions = directions
            self.replica = replica
            self.epoch = epoch
            self.nonce = nonce
        }
    }
}
