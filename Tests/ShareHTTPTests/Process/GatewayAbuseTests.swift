import Foundation
import Testing
import TestSupport

/// A real `sharelog http` under abuse from 127.0.0.1, in Python's raw
/// sockets and `http.client`, while a well-behaved client on 127.0.0.2
/// (curl `--interface`) keeps asking for a live share: slowloris
/// connections, a flood of connections beyond `--max-per-address`, and
/// 10,000 misses. Every loop and wait is bounded.
@Suite(.serialized) struct GatewayAbuseTests {
    /// The well-behaved client: one GET of `link` from 127.0.0.2.
    static func politeFetch(_ link: String) throws -> CurlAnswer {
        try CurlClient.fetch(link, ["--interface", "127.0.0.2", "-H", "Accept: text/vcard"])
    }

    /// Opens `count` connections from 127.0.0.1, sends a request line,
    /// prints `ready`, then sends one header byte a second on each until
    /// the server closes it or `bound` seconds pass. Reports how many the
    /// server cut off, how many stayed open to the bound, and any answer bytes.
    static let slowloris = """
        import json, select, socket, sys, time
        port, target, count, bound = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
        sockets, refused = [], 0
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            s.connect(("127.0.0.1", port))
            s.sendall(("GET " + target + " HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Slow: ").encode())
            sockets.append(s)
        print("ready", flush=True)
        start, cut, answers = time.monotonic(), set(), b""
        while time.monotonic() - start < bound and len(cut) < len(sockets):
            for index, s in enumerate(sockets):
                if index in cut: continue
                try:
                    readable, _, _ = select.select([s], [], [], 0)
                    if readable:
                        data = s.recv(65536)
                        if not data:
                            cut.add(index); continue
                        answers += data
                    s.send(b"a")
                except OSError:
                    cut.add(index)
            time.sleep(1)
        print(json.dumps({"cutOff": len(cut), "stillOpen": len(sockets) - len(cut), "answers": answers.decode("latin-1")}))
        """

    @Test func slowlorisConnectionsAreCutOffAtTheHeaderDeadline() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway(at: ProcessClock.serving, ProcessApps.arguments + ["--header-timeout", "2"])
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id
        // 16 connections (the per-address limit) trickling a byte a second
        // for up to 8 s: fewer than the 10 s idle timeout, so only the
        // 2 s header deadline can close them.
        let attack = BackgroundScript(try PythonClient.start(Self.slowloris, [String(gateway.port), "/appclip?id=" + id, "16", "8"]), what: "slowloris")
        try attack.wait(forLine: "ready", gateway: gateway)
        for _ in 0..<3 {
            let answer = try Self.politeFetch(link)
            #expect(answer.status == 200 && answer.body == ProcessCards.plain, "served while slowloris holds 16 connections")
        }
        let report = try attack.finish(gateway: gateway, timeout: .seconds(30))
        #expect(report["cutOff"] as? Int == 16, "every slow connection is cut off: \(report)")
        #expect(report["stillOpen"] as? Int == 0)
        #expect((report["answers"] as? String ?? "").contains("200") == false, "no slow header got a card: \(report)")
        let after = try Self.politeFetch(link)
        #expect(after.status == 200)
        let fromAttacker = try CurlClient.fetch(link, ["-H", "Accept: text/vcard"])
        #expect(fromAttacker.status == 200, "the cut connections no longer count against 127.0.0.1")
    }

    /// Opens `count` connections from 127.0.0.1 as fast as it can, each
    /// sending a header of 100 long fields with no end, then after a
    /// second counts how many the server has closed and how many it keeps.
    static let headerFlood = """
        import json, select, socket, sys, time
        port, target, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
        head = ("GET " + target + " HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n" + "".join("X-Flood-%d: %s\\r\\n" % (i, "f" * 60) for i in range(100))).encode()
        sockets, failed = [], 0
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(head)
                sockets.append(s)
            except OSError:
                failed += 1
        print("ready", flush=True)
        time.sleep(1)
        closed = failed
        for s in sockets:
            try:
                readable, _, _ = select.select([s], [], [], 0)
                if readable and not s.recv(65536):
                    closed += 1
            except OSError:
                closed += 1
        print(json.dumps({"closed": closed, "kept": count - closed}))
        for s in sockets: s.close()
        """

    @Test func aHeaderFloodBeyondTheAddressLimitLeavesOthersServed() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id
        let flood = BackgroundScript(try PythonClient.start(Self.headerFlood, [String(gateway.port), "/appclip?id=" + id, "80"]), what: "header flood")
        try flood.wait(forLine: "ready", gateway: gateway)
        for _ in 0..<3 {
            let answer = try Self.politeFetch(link)
            #expect(answer.status == 200 && answer.body == ProcessCards.plain, "served during the flood")
        }
        let report = try flood.finish(gateway: gateway, timeout: .seconds(30))
        let kept = report["kept"] as? Int ?? -1
        #expect((1...16).contains(kept), "at most 16 connections from one address (the default limit): \(report)")
        #expect(report["closed"] as? Int == 80 - kept)
        #expect(try Self.politeFetch(link).status == 200)
    }

    /// `threads` connections from 127.0.0.1, together `total` requests for
    /// random unknown ids on kept-alive connections; counts the statuses
    /// and the `Retry-After` values.
    static let misses = """
        import collections, http.client, json, sys, threading, uuid
        port, total, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
        statuses, retry, lock = collections.Counter(), collections.Counter(), threading.Lock()
        def client(count):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=("127.0.0.1", 0))
            for _ in range(count):
                connection.request("GET", "/appclip?id=" + str(uuid.uuid4()))
                response = connection.getresponse()
                response.read()
                with lock:
                    statuses[response.status] += 1
                    retry[response.getheader("Retry-After") or "-"] += 1
            connection.close()
        print("ready", flush=True)
        workers = [threading.Thread(target=client, args=(total // threads,)) for _ in range(threads)]
        for worker in workers: worker.start()
        for worker in workers: worker.join(120)
        print(json.dumps({"statuses": {str(k): v for k, v in statuses.items()}, "retryAfter": dict(retry)}))
        """

    @Test func tenThousandMissesFromOneAddressLeaveOthersServed() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        // The default allowance (20, then one every 20 s), refilled once an
        // hour instead, so the count below does not depend on how long the
        // flood takes on a loaded machine.
        let gateway = try fixture.gateway(ProcessApps.arguments + ["--miss-limit", "20,1h"])
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id
        let attack = BackgroundScript(try PythonClient.start(Self.misses, [String(gateway.port), "10000", "4"]), what: "10,000 misses")
        try attack.wait(forLine: "ready", gateway: gateway)
        var servedDuring = 0, asked = 0
        while asked < 40 && attack.lines.count < 2 {
            let answer = try Self.politeFetch(link)
            asked += 1
            #expect(answer.status == 200 && answer.body == ProcessCards.plain, "request \(asked) from 127.0.0.2 during the misses")
            attack.pump()
            gateway.pump()
            if answer.status == 200 { servedDuring += 1 }
        }
        let report = try attack.finish(gateway: gateway, timeout: .seconds(120))
        #expect(report["statuses"] as? [String: Int] == ["404": 20, "429": 9980], "\(report)")
        let waits = (report["retryAfter"] as? [String: Int] ?? [:]).filter { $0.key != "-" }
        #expect(report["retryAfter"].flatMap { ($0 as? [String: Int])?["-"] } == 20, "\(report)")
        #expect(waits.values.reduce(0, +) == 9980 && waits.keys.allSatisfy { (3000...3600).contains(Int($0) ?? 0) }, "about an hour: \(report)")
        #expect(servedDuring >= 1 && servedDuring == asked)
        let after = try Self.politeFetch(link)
        #expect(after.status == 200 && after.body == ProcessCards.plain, "served after the misses")
        try gateway.waitForAccessLines(10_000 + asked + 1, timeout: .seconds(30))
    }
}
