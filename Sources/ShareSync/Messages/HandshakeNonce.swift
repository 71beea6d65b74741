/// The 32 random bytes each side sends in the handshake, so that a proof of
/// authentication is made for this session only and cannot be replayed.
public struct HandshakeNonce: Hashable, Sendable {
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
