/// The kinds of bad client the load test runs (`HostileCrowd`), each over
/// and over on threads of its own while good clips fetch.
enum HostilePeer: String, CaseIterable, Sendable {
    /// Random bytes, then it waits for the server's answer.
    case garbage
    /// Only a frame length, of 2 GiB - 1: far over the 4 MiB limit.
    case oversizedLength
    /// A main client's hello, one byte a second.
    case trickle
    /// `sharelog sync --push` from a store of its own, under another key.
    case wrongKey
    /// A main client's hello and proof, recorded from a session that got
    /// in, sent again on a new connection: the server's nonce differs, so
    /// the proof must not match.
    case replayedHandshake
    /// Many connections held open without a byte, each reopened when the
    /// server drops it.
    case flood
    /// Many connections that send one byte and then nothing (the start of
    /// a frame's length), held open and reopened like the flood's: before,
    /// each took a session thread and a place.
    case oneByteFlood
    /// Clips that finish their handshake and then only send heartbeats, so
    /// as to hold the clips' places; each is refused when the server ends
    /// it for idleness (or turns it away as busy).
    case idleClip

    /// How one attempt of a bad client ended.
    enum Outcome: Equatable, Sendable {
        /// The server refused it: it closed the connection, after an error
        /// message or none, without letting the client in.
        case refused
        /// The server let it further than it may go; the text says how.
        case admitted(String)
        /// The attempt never reached the server (no connection); the text says why.
        case unreached(String)
    }
}
