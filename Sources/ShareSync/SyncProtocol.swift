/// The constants both ends of a sync session agree on (docs/SYNC.md).
public enum SyncProtocol {
    /// The first bytes of every session's first frame: "SLSY".
    public static let magic: [UInt8] = Array("SLSY".utf8)
    /// The protocol versions this build speaks. A peer whose range does not
    /// overlap is refused in the handshake, with both ranges in the error.
    /// Version 2 (docs/SYNC.md "Protocol versions") moved `heldOfYou` from
    /// the welcome to `accepted`, after the proof, and keys its proofs and
    /// its TLS with separate keys derived from the shared one; a version 1
    /// peer is refused with `versionMismatch`.
    public static let versions: ClosedRange<UInt16> = 2 ... 2
    /// The largest frame payload accepted by default: a batch of events is
    /// bounded by bytes below this, and one event (a card of at most 1 MiB)
    /// always fits.
    public static let defaultMaxFrameBytes = 4 << 20
}
