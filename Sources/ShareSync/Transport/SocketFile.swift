import Glibc

/// The file a `unix:` listener's socket is bound to, known by its device
/// and inode, so that it can be told apart from a file that later took its
/// path.
struct SocketFile {
    let path: String
    private let device: UInt64
    private let inode: UInt64

    /// The socket file just bound at `path`. Throws `.unsafeSocketMode`
    /// (after removing the file) unless it is a socket that only its owner
    /// may use.
    init(boundAt path: String) throws(TransportError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw .system(operation: "lstat \(path)", errno: errno) }
        self.path = path
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        guard status.st_mode & S_IFMT == S_IFSOCK, status.st_mode & 0o077 == 0 else {
            remove()
            throw .unsafeSocketMode(path: path, mode: UInt32(status.st_mode))
        }
    }

    /// Removes the file if `path` still names it.
    func remove() {
        var status = stat()
        guard lstat(path, &status) == 0, UInt64(status.st_dev) == device, UInt64(status.st_ino) == inode else { return }
        _ = unlink(path)
    }

    /// Makes `path` free for a new listener: nothing there is fine, a stale
    /// socket (connecting to it is refused) is removed. A live socket
    /// throws `.addressInUse`; anything else `.notASocket`.
    static func clearStale(at path: String, endpoint: Endpoint) throws(TransportError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw .system(operation: "lstat \(path)", errno: errno)
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
        do throws(TransportError) {
            let probe = try SocketChannel.connect(to: endpoint, deadline: .now)
            probe.close()
            throw TransportError.addressInUse(endpoint)
        } catch .connectionRefused {
            guard unlink(path) == 0 || errno == ENOENT else { throw .system(operation: "unlink the stale socket \(path)", errno: errno) }
        } catch .noSuchSocket {
            return
        } catch .timedOut {
            // A full backlog: a server is there.
            throw .addressInUse(endpoint)
        }
    }
}
