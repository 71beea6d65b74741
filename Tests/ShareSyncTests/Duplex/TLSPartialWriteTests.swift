import Glibc
import Testing
import TestSupport
@testable import ShareSync

/// A TLS channel's partial write encrypts what it takes at once and keeps
/// the ciphertext the socket has no room for: it reports it as pending,
/// sends it while waiting to write, and the peer decrypts exactly the
/// bytes taken.
@Suite(.timeLimit(.minutes(1))) struct TLSPartialWriteTests {
    @Test func ciphertextTheSocketCouldNotTakeIsKeptAndSentLater() throws {
        let pair = try ChannelPair.tls()
        defer { pair.close() }
        let client = pair.left, server = pair.right
        var random = SeededGenerator(seed: 8)
        // Far more than loopback TCP's buffers hold.
        let bytes = DuplexTraffic.bytes(32 << 20, using: &random)
        // Write until the socket and its peer's buffers are full and a
        // write gives up: what it could not send is pending then.
        var taken = 0
        var stopped: TransportError?
        while taken < bytes.count, stopped == nil {
            do { taken += try bytes[taken...].withUnsafeBytes { try client.writeSome($0, deadline: after(.milliseconds(200))) } } catch let error as TransportError {
                stopped = error
            }
        }
        #expect(stopped == .timedOut(waitingFor: "\(client) to take the bytes written to it"))
        #expect(client.hasPendingOutput == true)
        // Once the peer reads, the pending ciphertext goes out, and the
        // peer gets exactly the bytes that were taken, in one piece.
        let total = taken
        let reader = BackgroundThread { try server.read(exactly: total, deadline: after(.seconds(60))) }
        #expect(try client.waitReady(reading: false, writing: true, orWake: nil, deadline: after(.seconds(60))) == [.writable])
        #expect(client.hasPendingOutput == false)
        #expect(
            DuplexTraffic.Fingerprint(try reader.join("the server read what the client's partial writes took"))
                == DuplexTraffic.Fingerprint(bytes[..<total]))
        #expect(try server.waitReady(reading: true, writing: false, orWake: nil, deadline: after(.milliseconds(100))) == [])
    }

    @Test func aWaitReportsReadableWritableAndWokenAsTheyAre() throws {
        let pair = try ChannelPair.tls()
        defer { pair.close() }
        let client = pair.left, server = pair.right
        var wake: [Int32] = [-1, -1]
        #expect(pipe(&wake) == 0)
        defer { wake.forEach { close($0) } }
        #expect(try client.waitReady(reading: true, writing: false, orWake: wake[0], deadline: after(.milliseconds(50))) == [])
        #expect(try client.waitReady(reading: true, writing: true, orWake: wake[0], deadline: after(.seconds(60))) == [.writable])
        try server.write([1, 2, 3], deadline: after(.seconds(60)))
        // Room to write does not hide what arrives: once the record is
        // there, a wait that finds both reports both.
        try Deadline.block(until: "a wait saw the server's record beside room to write", timeout: .seconds(20)) {
            try client.waitReady(reading: true, writing: true, orWake: wake[0], deadline: .now) == [.readable, .writable]
        }
        #expect(try client.read(exactly: 3, deadline: after(.seconds(60))) == [1, 2, 3])
        #expect(write(wake[1], [1], 1) == 1)
        #expect(try client.waitReady(reading: true, writing: false, orWake: wake[0], deadline: after(.seconds(60))) == [.woken])
    }
}
