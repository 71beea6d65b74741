/// What went wrong, in an `error` message; its text says the rest.
public enum SyncErrorCode: UInt16, CaseIterable, Hashable, Sendable {
    /// The two protocol-version ranges do not overlap.
    case versionMismatch = 1
    /// The proof of authentication is missing or wrong.
    case authenticationFailed = 2
    /// The role may not do what it asked (a clip that pulls, for one).
    case roleForbidden = 3
    /// A frame or message could not be decoded.
    case malformedFrame = 4
    /// A frame's length is over the receiver's limit.
    case oversizedFrame = 5
    /// A well-formed message that is not allowed at this point of the session.
    case unexpectedMessage = 6
    /// The snapshot could not be made or applied.
    case snapshotFailed = 7
    /// A batch held events that may not be applied (invalid, or claiming the receiver's own origin).
    case invalidEvents = 8
    /// The server has no room for the session now; try again later.
    case busy = 9
    /// The server is stopping.
    case shuttingDown = 10
    /// An error of the sender's own (storage, for one).
    case `internal` = 11
    /// A clip's session asked for nothing for the server's clip idle
    /// timeout, and its place was given up for other clips.
    case idle = 13
    /// The peer claims to hold more of this replica's own events than it
    /// made (`UnmadeEventsClaim`): refused before any event is sent, the id kept.
    /// (12, `identityChanged`, was sent when such a claim renewed the
    /// sender's id; it is retired and never reused.)
    case unmadeEventsClaimed = 14
}
