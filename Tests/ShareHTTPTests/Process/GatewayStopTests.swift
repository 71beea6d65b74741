import Foundation
import Glibc
import SampleCards
import Testing
import TestSupport
import TestTraits

/// `sharelog http` on SIGTERM: an answer being sent when the signal comes
/// reaches its client whole, a connection made after it is refused, and
/// the process says how many answers it gave and exits 0.
@Suite(.hangDeadline) struct GatewayStopTests {
    /// A client that asks for one large card and reads it slowly, through
    /// a small receive buffer: it prints `started` once the first bytes
    /// are in, then a JSON line with the status and the body it read.
    static let slowReader = """
        import json, socket, sys, time
        port, path = int(sys.argv[1]), sys.argv[2]
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(30)
        s.connect(("127.0.0.1", port))
        s.sendall(("GET %s HTTP/1.1\\r\\nHost: cards.example.com\\r\\nAccept: text/vcard\\r\\n\\r\\n" % path).encode())
        data = s.recv(4096)
        print("started", flush=True)
        while b"\\r\\n\\r\\n" not in data:
            data += s.recv(4096)
        head, body = data.split(b"\\r\\n\\r\\n", 1)
        length = int([l.split(b":")[1] for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length:")][0])
        while len(body) < length:
            chunk = s.recv(8192)
            if not chunk:
                break
            body += chunk
            time.sleep(0.01)
        print(json.dumps({"status": int(head.split(b" ")[1]), "length": length, "body": body.hex()}), flush=True)
        """

    @Test func anAnswerInFlightFinishesAndNewConnectionsAreRefused() throws {
        let dir = TemporaryDirectory("gateway-stop")
        let cli = SharelogCLI(store: dir.appending("store"), now: "2026-03-02T09:00:00Z", timeout: .seconds(30))
        _ = try cli.run("init").checked("sharelog init")
        // A card near the 1 MiB limit: its answer outlasts the socket buffers.
        let card = SampleCard.make(index: 1, photoBytes: 700_000)
        let created = try cli.run("share", "create", "-", "--json", input: card).checked("sharelog share create")
        let id = try #require(created.json["id"] as? String)
        let gateway = try GatewayProcess(cli)
        defer { _ = try? gateway.stop() }

        let reader = try Subprocess("/usr/bin/python3", ["-c", Self.slowReader, "\(gateway.port)", "/appclip?id=\(id)"], environment: [:])
        defer { reader.kill() }
        var printed: [UInt8] = []
        try Deadline.block(until: "the slow reader has its first bytes", timeout: .seconds(20), every: .milliseconds(5)) {
            printed += reader.readOutput(waitingAtMost: 5) ?? []
            return String(decoding: printed, as: UTF8.self).contains("started\n") || !reader.isRunning
        }
        #expect(reader.isRunning, "the reader ended before the body came: \(String(decoding: reader.errorOutput, as: UTF8.self))")

        kill(gateway.pid, SIGTERM)
        try Deadline.block(until: "the gateway logs the stop", timeout: .seconds(10), every: .milliseconds(5)) {
            gateway.pump()
            return gateway.lines.contains { $0.hasPrefix("sharelog: signal SIGTERM: stopping") }
        }
        let refused = CLIResult(try Subprocess.run(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "--max-time", "5", "http://127.0.0.1:\(gateway.port)/appclip?id=\(id)"], timeout: .seconds(20)))
        #expect(refused.status == 7, "curl's 'failed to connect' for a connection after the stop, not \(refused.status)")

        let outcome = try reader.finish(timeout: .seconds(60))
        let lines = String(decoding: printed + outcome.output, as: UTF8.self).split(separator: "\n")
        let answer = try #require(lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(answer["status"] as? Int == 200)
        #expect(answer["length"] as? Int == card.count)
        #expect(answer["body"] as? String == card.map { String(format: "%02x", $0) }.joined(), "the whole card, byte for byte")

        let stopped = try gateway.stop()
        #expect(stopped.status == 0)
        #expect(stopped.error.contains("sharelog: http: stopped after 1 answer\n"), "\(stopped.error)")
    }
}
