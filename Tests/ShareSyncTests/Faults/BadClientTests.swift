import Foundation
import ShareLog
import Testing
import TestSupport
@testable import ShareSync
import TestTraits

/// Bad clients against a real `sharelog serve`, over a keyed Unix socket
/// and over TCP with TLS: each is refused with a clear reason in one log
/// line, writes nothing, and well-behaved clients sync fine meanwhile: one
/// pulls before, between and after them, another follows the whole time
/// over one session (issue 12, "Done means", bad input).
@Suite(.serialized, .hangDeadline) struct BadClientTests {
    static let seed: UInt64 = 0x5EED_BAD0_C11E
    /// What the server's line says when a connection sends no hello in time.
    static let noHello = "timed out waiting for a hello (handshake timeout)"

    static func hello(versions: ClosedRange<UInt16>) -> [UInt8] {
        FrameEncoder.encode(Message.hello(Message.Hello(
            versions: versions, role: .main, directions: .pull, replica: ReplicaID("0000000b-0000-4000-8000-000000000001")!,
            epoch: Epoch("0000000b-0000-4000-8000-0000000000e1")!, nonce: HandshakeNonce(bytes: Array(repeating: 7, count: 32))!)).frame)
    }

    @Test(arguments: BadClientBench.Transport.allCases)
    func badClientsAreRefusedAndAGoodOneKeepsSyncing(_ transport: BadClientBench.Transport) throws {
        let bench = try BadClientBench(transport)
        try bench.goodSync()
        let watcher = try bench.startWatcher()
        defer { watcher.kill() }

        print("BadClientTests: random bytes from seed \(Self.seed)")
        var generator = SeededGenerator(seed: Self.seed)
        for round in 0..<3 {
            let bytes = (0..<Int.random(in: 16...512, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = try #require(FrameRefusalOracle(bytes, handshakeTimeout: Self.noHello))
            let peer = try bench.connect()
            try peer.send(bytes)
            let answer = try RawPeer.messages(in: peer.readUntilClosed())
            if let code = expected.code {
                guard case .error(let sent, _)? = answer.first else {
                    Issue.record("random bytes \(round): the server answered \(answer), not an error")
                    continue
                }
                #expect(sent == code, "random bytes \(round)")
            } else {
                #expect(answer == [], "random bytes \(round)")
            }
            try bench.expectRefused("random bytes \(round)", reasons: [expected.reason])
        }

        // A whole hello but for its last 30 bytes, then the client hangs up.
        let truncated = try bench.connect()
        try truncated.send(Array(Self.hello(versions: 1 ... 1).dropLast(30)))
        truncated.close()
        try bench.expectRefused("a truncated frame", reasons: ["closed the connection before the session ended"])

        // Only the 4 length bytes, of 4 MiB + 1: the server must refuse them
        // then and there, not wait for a payload that never comes. Before
        // the handshake no frame may pass 514 bytes (an error's).
        let oversized = try bench.connect()
        try oversized.send([0x00, 0x40, 0x00, 0x01])
        let refusal = try RawPeer.messages(in: oversized.readUntilClosed())
        #expect(refusal.count == 1)
        if case .error(let code, let text)? = refusal.first {
            #expect(code == .oversizedFrame)
            #expect(text.contains("4194305") && text.contains("514"))
        } else {
            Issue.record("an oversized length: the server answered \(refusal), not an error")
        }
        try bench.expectRefused("an oversized length", reasons: ["frame of 4194305 payload bytes, over the limit of 514"])

        let newer = try bench.connect()
        try newer.send(Self.hello(versions: 7 ... 9))
        let mismatch = try RawPeer.messages(in: newer.readUntilClosed())
        #expect(mismatch.count == 1)
        if case .error(let code, let text)? = mismatch.first {
            #expect(code == .versionMismatch)
            #expect(text.contains("version 2,") && text.contains("versions 7–9"))
        } else {
            Issue.record("a wrong version: the server answered \(mismatch), not an error")
        }
        try bench.expectRefused("a wrong version", reasons: ["no common protocol version", "version 2,", "versions 7–9"])

        let stranger = bench.directory.appending("stranger")
        let wrongKey = try bench.sync(store: stranger, keyFile: bench.otherKeyFile, "--pull")
        #expect(wrongKey.status == 1)
        switch transport {
        case .unix:
            #expect(wrongKey.error.contains("authentication failed: the server's proof does not match this key: the two sides hold different keys"))
            try bench.expectRefused("a wrong key", reasons: ["authentication failed", "different keys"])
            let noKey = try bench.sync(store: stranger, keyFile: nil, "--pull")
            #expect(noKey.status == 1)
            #expect(noKey.error.contains("must prove it holds the key"))
            try bench.expectRefused("no key", reasons: ["authentication failed", "must prove it holds the key"])
        case .tcp:
            #expect(wrongKey.error.contains("TLS handshake failed: the peer does not hold this key"))
            try bench.expectRefused("a wrong key", reasons: ["TLS handshake failed", "does not hold this key"])
            let plain = try bench.connectPlain()
            try plain.send(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            _ = try plain.readUntilClosed()
            try bench.expectRefused("plain text to the TLS port", reasons: ["TLS handshake failed", "does not speak TLS"])
            let silentBeforeTLS = try bench.connectPlain()
            _ = try silentBeforeTLS.readUntilClosed()
            try bench.expectRefused("silence before TLS", reasons: ["timed out waiting for the TLS handshake"])
        }
        // Refused before the server accepted: no store was made for it.
        #expect(!FileManager.default.fileExists(atPath: stranger), "a refused sync left a store at \(stranger)")

        let silent = try bench.connect()
        #expect(try silent.readUntilClosed() == [])
        try bench.expectRefused("silence", reasons: [Self.noHello])
        try bench.expectWatcherCaughtUp(watcher)
    }
}
