/// How far this replica has applied another replica's log: the `cursors`
/// database's entry for one peer (docs/FORMAT.md).
///
/// A cursor is written in the same write transaction as the events it
/// covers, so after a crash it never points past what was applied, and a
/// resumed pull asks for exactly what is missing.
public struct PeerCursor: Hashable, Sendable {
    /// The peer's replica id.
    public let peer: ReplicaID
    /// The peer store's epoch when `position` was read from its log. A
    /// peer with another epoch now was wiped, restored or recreated, and
    /// the position means nothing there.
    public let epoch: Epoch
    /// The position in the peer's log up to which every event has been
    /// applied here (0: none yet).
    public let position: UInt64
    /// When this replica last heard from the peer, by this replica's clock.
    public let lastSeen: Timestamp

    public init(peer: ReplicaID, epoch: Epoch, position: UInt64, lastSeen: Timestamp) {
        self.peer = peer
        self.epoch = epoch
        self.position = position
        self.lastSeen = lastSeen
    }

    static let encodedSize = 32

    /// Epoch (16), position (8), lastSeen in milliseconds (8); big-endian.
    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.encodedSize)
        writer.write(epoch.bytes)
        writer.write(position)
        writer.write(lastSeen.milliseconds)
        return writer.bytes
    }

    /// Decodes a stored entry; nil for a key or value of the wrong length.
    init?(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard key.count == 16, value.count == Self.encodedSize else { return nil }
        var reader = ByteReader(value)
        guard let epoch = reader.readSlice(16), let position = reader.read(UInt64.self),
              let lastSeen = reader.read(Int64.self)
        else { return nil }
        self.init(peer: ReplicaID(bytes: key), epoch: Epoch(bytes: epoch), position: position, lastSeen: Timestamp(milliseconds: lastSeen))
    }
}
