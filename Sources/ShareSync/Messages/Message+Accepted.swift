import ShareLog

extension Message {
    /// The server's last handshake message (protocol 2): the session has
    /// its place, and may start.
    public struct Accepted: Hashable, Sendable {
        /// The highest origin counter of the client's own replica id that
        /// the server holds (0: none): the client's claim check. Told
        /// only to a main the server admitted, about its own id; a clip
        /// is told 0.
        public var heldOfYou: UInt64
        /// The server's proof over the handshake and `heldOfYou`, when it
        /// holds a key.
        public var proof: HandshakeProof?

        /// An acceptance with these fields.
        public init(heldOfYou: UInt64, proof: HandshakeProof?) {
            self.heldOfYou = heldOfYou
            self.proof = proof
        }
    }
}
