import Glibc
import TestSupport
@testable import ShareSync

/// Two connected ends of one byte stream, as two sync peers hold them.
struct ChannelPair {
    let left: any ByteChannel
    let right: any ByteChannel
    /// Keeps the socket's directory or listener until the pair is done.
    private let keepAlive: [any Sendable]

    func close() {
        left.close()
        right.close()
    }

    /// Over a Unix socket in a directory of its own.
    static func unixSocket() throws -> ChannelPair {
        let directory = TemporaryDirectory("duplex")
        let listener = try Listener(listeningOn: .unix(path: directory.appending("d.sock")))
        defer { listener.close() }
        let client = try SocketChannel.connect(to: listener.endpoint, deadline: after(.seconds(60)))
        let server = try listener.accept(deadline: after(.seconds(60)))
        return ChannelPair(left: client, right: server, keepAlive: [directory])
    }

    /// TLS 1.3 over TCP on 127.0.0.1, both ends holding the same key.
    static func tls() throws -> ChannelPair {
        let key = SyncKey.generate()
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let server = BackgroundThread {
            try TLSChannel.server(over: try listener.accept(deadline: after(.seconds(60))), key: key, deadline: after(.seconds(60)))
        }
        let socket = try SocketChannel.connect(to: listener.endpoint, deadline: after(.seconds(60)))
        let client = try TLSChannel.client(over: socket, key: key, deadline: after(.seconds(60)))
        return ChannelPair(left: client, right: try server.join("the TLS server's handshake"), keepAlive: [])
    }

    /// Two pipes, one each way, read and written as `--stdio` and `exec:`
    /// do (`StdioChannel`, which `CommandChannel` runs on).
    static func pipes() -> ChannelPair {
        var leftToRight: [Int32] = [-1, -1], rightToLeft: [Int32] = [-1, -1]
        precondition(pipe(&leftToRight) == 0 && pipe(&rightToLeft) == 0, "no descriptors left for a pipe")
        let left = StdioChannel(input: rightToLeft[0], output: leftToRight[1])
        let right = StdioChannel(input: leftToRight[0], output: rightToLeft[1])
        return ChannelPair(left: left, right: right, keepAlive: [])
    }
}
