/// The 32-byte proof of authentication of the handshake; the security
/// section of docs/SYNC.md says how it is made from the key and the nonces.
public struct HandshakeProof: Hashable, Sendable {
    /// The size on the wire.
    public static let size = 32

    /// Exactly `size` bytes.
    public let bytes: [UInt8]

    /// Nil unless `bytes` holds exactly 32 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.size else { return nil }
        self.bytes = Array(bytes)
    }
}
