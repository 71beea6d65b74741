/// Which ways events flow in a session, as the client asks in `hello`
/// (docs/SYNC.md): a bit set of one byte, whose other bits are 0.
public struct SyncDirections: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The client pulls the server's events.
    public static let pull = SyncDirections(rawValue: 1)
    /// The client's events go to the server: the server pulls them.
    public static let push = SyncDirections(rawValue: 2)
    /// Once caught up, the session stays open, and new events flow as they
    /// commit.
    public static let follow = SyncDirections(rawValue: 4)

    /// Both ways.
    public static let both: SyncDirections = [.pull, .push]
    /// The bits this version defines.
    static let defined: SyncDirections = [.pull, .push, .follow]
}
