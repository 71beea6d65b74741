import Glibc

/// Why a `LoopbackHTTP` request or a `LoopbackSocket` call failed.
public enum LoopbackError: Error, CustomStringConvertible, Equatable {
    /// Nothing listens on the port: the server is not (yet, or any more) up.
    case refused(port: UInt16)
    /// A socket call failed with `errno`; EAGAIN means the timeout passed.
    case io(_ call: String, _ errno: Int32)
    /// The reply is not an HTTP/1.x response.
    case malformed(port: UInt16, reply: String)

    public var description: String {
        switch self {
        case .refused(let port): "nothing listens on 127.0.0.1:\(port) (connection refused); is the server running?"
        case .io(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .malformed(let port, let reply): "127.0.0.1:\(port) did not answer HTTP: \(reply.prefix(200))"
        }
    }
}
