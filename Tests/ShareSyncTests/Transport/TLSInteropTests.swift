import Foundation
import Testing
import TestSupport
@testable import ShareSync
import TestTraits

/// ShareLog's TLS is standard TLS 1.3 with an external pre-shared key:
/// OpenSSL's own command-line server and client, given the TLS key that
/// `openssl kdf` derives from the key file's hex (HKDF-SHA256, info
/// `sharelog-sync v2 tls psk`) and the identity `sharelog-sync-v2`, talk
/// with `TLSChannel`.
@Suite(.hangDeadline) struct TLSInteropTests {
    private static let openssl = "/usr/bin/openssl"

    /// `openssl s_server` ended before it printed its port.
    private struct ServerExited: Error {
        let output: String
    }

    /// A key written to a key file, with the hex of the TLS key that
    /// OpenSSL's command line derives from what the file holds.
    private func keyAndHex(in directory: TemporaryDirectory) throws -> (SyncKey, String) {
        let path = directory.appending("sync.key")
        try SyncKey.generate().write(to: path)
        let hex = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .newlines)
        let derived = try Subprocess.run(
            Self.openssl,
            ["kdf", "-keylen", "32", "-kdfopt", "digest:SHA256", "-kdfopt", "hexkey:\(hex)", "-kdfopt", "info:sharelog-sync v2 tls psk", "HKDF"],
            input: [], timeout: .seconds(60))
        let tlsKey = String(decoding: derived.output, as: UTF8.self).filter(\.isHexDigit).lowercased()
        try #require(tlsKey.count == 64, "openssl kdf printed \(String(decoding: derived.output + derived.error, as: UTF8.self))")
        return (try SyncKey.load(from: path), tlsKey)
    }

    @Test func aTLSChannelClientTalksToOpenSSLsServer() throws {
        let directory = TemporaryDirectory("tls")
        let (key, hex) = try keyAndHex(in: directory)
        // -rev: the server answers each line reversed.
        let server = try Subprocess(
            Self.openssl,
            ["s_server", "-accept", "127.0.0.1:0", "-nocert", "-psk", hex, "-psk_identity", "sharelog-sync-v2", "-naccept", "1", "-rev"],
            environment: [:])
        defer { server.kill() }
        var printed = ""
        var port: UInt16?
        try Deadline.block(until: "openssl s_server prints its port") {
            guard let chunk = server.readOutput(waitingAtMost: 100) else { throw ServerExited(output: printed) }
            printed += String(decoding: chunk, as: UTF8.self)
            let accepting = printed.split(separator: "\n").first { $0.hasPrefix("ACCEPT 127.0.0.1:") }
            port = accepting.flatMap { UInt16($0.dropFirst("ACCEPT 127.0.0.1:".count)) }
            return port != nil
        }
        let socket = try SocketChannel.connect(to: .tcp(host: "127.0.0.1", port: port!), deadline: after(.seconds(60)))
        let client = try TLSChannel.client(over: socket, key: key, deadline: after(.seconds(60)))
        defer { client.close() }
        try client.write(Array("hello sharelog\n".utf8), deadline: after(.seconds(60)))
        #expect(try client.read(exactly: 15, deadline: after(.seconds(60))) == Array("golerahs olleh\n".utf8))
    }

    @Test func openSSLsClientTalksToATLSChannelServer() throws {
        let directory = TemporaryDirectory("tls")
        let (key, hex) = try keyAndHex(in: directory)
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        guard case .tcp(_, let port) = listener.endpoint else {
            Issue.record("a tcp listener reports \(listener.endpoint)")
            listener.close()
            return
        }
        let server = BackgroundThread {
            listener.adoptOnCurrentThread()
            defer { listener.close() }
            let socket = try listener.accept(deadline: after(.seconds(60)))
            let channel = try TLSChannel.server(over: socket, key: key, deadline: after(.seconds(60)))
            defer { channel.close() }
            let question = try channel.read(exactly: 5, deadline: after(.seconds(60)))
            try channel.write(Array("pong\n".utf8), deadline: after(.seconds(60)))
            return question
        }
        let client = try Subprocess.run(
            Self.openssl,
            ["s_client", "-connect", "127.0.0.1:\(port)", "-psk", hex, "-psk_identity", "sharelog-sync-v2", "-quiet"],
            input: Array("ping\n".utf8), timeout: .seconds(60))
        #expect(try server.join("the server answered openssl s_client") == Array("ping\n".utf8))
        #expect(String(decoding: client.output, as: UTF8.self) == "pong\n", "\(String(decoding: client.error, as: UTF8.self))")
    }

    @Test func openSSLsClientWithAnotherKeyIsRefusedByTheServer() throws {
        let directory = TemporaryDirectory("tls")
        let (key, _) = try keyAndHex(in: directory)
        let listener = try Listener(listeningOn: .tcp(host: "127.0.0.1", port: 0))
        guard case .tcp(_, let port) = listener.endpoint else {
            Issue.record("a tcp listener reports \(listener.endpoint)")
            listener.close()
            return
        }
        let server = BackgroundThread {
            listener.adoptOnCurrentThread()
            defer { listener.close() }
            let socket = try listener.accept(deadline: after(.seconds(60)))
            return try TLSChannel.server(over: socket, key: key, deadline: after(.seconds(60))).description
        }
        let client = try Subprocess.run(
            Self.openssl,
            [
                "s_client", "-connect", "127.0.0.1:\(port)", "-psk", String(repeating: "5a", count: 32),
                "-psk_identity", "sharelog-sync-v2", "-quiet",
            ],
            input: Array("ping\n".utf8), timeout: .seconds(60))
        let error = #expect(throws: TransportError.self) { try server.join("the server refused openssl s_client") }
        guard case .tlsKeyMismatch = error else {
            Issue.record("the server reported \(String(describing: error))")
            return
        }
        // s_client exits with 1 when its handshake fails.
        #expect(client.status == 1)
    }
}
