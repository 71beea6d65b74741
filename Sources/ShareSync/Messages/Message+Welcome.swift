import ShareLog

extension Message {
    /// The server's answer to `hello`.
    public struct Welcome: Hashable, Sendable {
        /// The version the session speaks: the highest in both ranges.
        public var version: UInt16
        /// The server store's replica id.
        public var replica: ReplicaID
        /// The server store's epoch.
        public var epoch: Epoch
        /// Fresh random bytes for this session's proof.
        public var nonce: HandshakeNonce
        /// The server's proof of authentication, when it gives one.
        public var proof: HandshakeProof?

        /// A welcome with these fields.
        public init(version: UInt16, replica: ReplicaID, epoch: Epoch, nonce: HandshakeNonce, proof: HandshakeProof?) {
            self.version = version
            self.replica = replica
            self.epoch = epoch
            self.nonce = nonce
            self.proof = proof
        }
    }
}
