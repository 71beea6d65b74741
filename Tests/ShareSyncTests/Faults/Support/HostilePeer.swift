/// The kinds of bad client the load test runs (`HostileCrowd`), each over
/// and over on threads of its own while good clients sync.
enum HostilePeer: String, CaseIterable, Sendable {
    /// Random bytes, then it waits for the server's answer: on TCP, garbage
    /// where a TLS ClientHello belongs.
    case garbage
    /// Only a length far over the limit: a frame of 2 GiB - 1 (over 4 MiB)
    /// on the Unix socket, a TLS handshake record of 64 KiB - 1 (over
    /// TLS's 16 KiB) on TCP.
    case oversizedLength
    /// A main client's hello, one byte a second; on TCP, its TLS
    /// ClientHello (under the right key), one byte a second.
    case trickle
    /// `sharelog sync --push` from a store of its own, under another key:
    /// refused at the proof on the Unix socket, in TLS (PSK binder) on TCP.
    case wrongKey
    /// A main client's hello and proof, recorded from a session that got
    /// in, sent again on a new connection: the server's nonce differs, so
    /// the proof must not match. Unix socket only (`kinds(over:)`).
    case replayedHandshake
    /// Many connections held open without a byte, each reopened when the
    /// server drops it.
    case flood
    /// Many connections that send one byte and then nothing (the start of
    /// a frame's length, or of a TLS record on TCP: 0x16), held open and
    /// reopened like the flood's: before, each took a session thread and
    /// a place.
    case oneByteFlood
    /// Clips that finish their handshake and then only send heartbeats, so
    /// as to hold the clips' places; each is refused when the server ends
    /// it for idleness (or turns it away as busy). Unix socket only.
    case idleClip
    /// Clips on the TCP port, inside TLS under the sync key (as a library
    /// client given a key could): the port serves mains only, so each is
    /// refused with `error(roleForbidden)` in place of a welcome. TCP only.
    case clipOnTCP

    /// The kinds that make sense over `transport`. Over TCP there is no
    /// replayed handshake (the TLS handshake's fresh ephemeral shares
    /// already make a recorded session useless, and the sync handshake's
    /// replay is the Unix socket's) and no idle clip (a clip never gets a
    /// place there: `clipOnTCP` tries instead); on the Unix socket a clip
    /// is welcome, so `clipOnTCP` has no meaning.
    static func kinds(over transport: HostileNetworkBench.Transport) -> [HostilePeer] {
        switch transport {
        case .unix: allCases.filter { $0 != .clipOnTCP }
        case .tcp: allCases.filter { $0 != .replayedHandshake && $0 != .idleClip }
        }
    }

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
