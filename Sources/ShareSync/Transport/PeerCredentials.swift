import Glibc

/// Linux's `struct ucred` (`SO_PEERCRED`), which the Glibc module exports
/// only with `_GNU_SOURCE`: the process and user at the other end of a Unix
/// socket, as the kernel recorded them when that end connected or listened.
struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0

    /// The credentials of the peer of `socket`, a connected Unix socket;
    /// nil when the kernel will not tell (`errno` says why).
    init?(of socket: Int32) {
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &self, &length) == 0 else { return nil }
    }
}
