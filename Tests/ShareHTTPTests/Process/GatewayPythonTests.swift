import Foundation
import Testing
import TestSupport

/// A real `sharelog http` driven by Python's `http.client`: many requests
/// on one kept-alive connection, each answer read to its end and checked,
/// so a wrong `Content-Length`, a body after `HEAD` or 304, or a closed
/// connection shows as a broken answer or a new socket.
@Suite(.serialized) struct GatewayPythonTests {
    /// Sends `rounds` rounds of seven requests on one `HTTPConnection` and
    /// prints, for each, the status, the fields and the body, and the local
    /// ports the connection used.
    static let oneConnection = """
        import base64, http.client, json, sys
        host, port, live, unknown, rounds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
        connection = http.client.HTTPConnection(host, port, timeout=10)
        answers, ports, tag = [], set(), None
        def ask(method, target, headers):
            connection.request(method, target, headers=headers)
            ports.add(connection.sock.getsockname()[1])
            response = connection.getresponse()
            body = response.read()
            answers.append({"method": method, "target": target, "status": response.status,
                            "headers": {k.lower(): v for k, v in response.getheaders()},
                            "body": base64.b64encode(body).decode()})
            return response
        for _ in range(rounds):
            ask("GET", "/appclip?id=" + live, {})
            card = ask("GET", "/appclip?id=" + live, {"Accept": "text/vcard"})
            tag = card.getheader("ETag")
            ask("HEAD", "/appclip?id=" + live, {"Accept": "application/json"})
            ask("GET", "/appclip?id=" + live, {"Accept": "application/json"})
            ask("GET", "/appclip?id=" + live, {"Accept": "text/vcard", "If-None-Match": tag})
            ask("GET", "/appclip?id=" + unknown, {"Accept": "application/json"})
            ask("GET", "/.well-known/apple-app-site-association", {})
        connection.close()
        print(json.dumps({"answers": answers, "ports": sorted(ports)}))
        """

    struct Answer {
        let method: String, target: String, status: Int, headers: [String: String], body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func answers(_ report: [String: Any]) -> [Answer] {
        (report["answers"] as? [[String: Any]] ?? []).map {
            Answer(
                method: $0["method"] as? String ?? "", target: $0["target"] as? String ?? "", status: $0["status"] as? Int ?? 0,
                headers: $0["headers"] as? [String: String] ?? [:], body: Array(Data(base64Encoded: $0["body"] as? String ?? "") ?? Data()))
        }
    }

    @Test func manyRequestsOnOneConnectionAllGetTheirAnswers() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let unknown = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        // 10 rounds: 60 share requests (of the 100 one address may burst) and 10 misses (of 20).
        let report = try PythonClient.report(
            PythonClient.run(Self.oneConnection, ["127.0.0.1", String(gateway.port), id, unknown, "10"], timeout: .seconds(60)), "http.client, one connection")
        #expect((report["ports"] as? [Int])?.count == 1, "one connection, one local port: \(report["ports"] ?? "none")")
        let answers = Self.answers(report)
        #expect(answers.count == 70)
        let card = String(decoding: ProcessCards.plain, as: UTF8.self)
        for (index, answer) in answers.enumerated() {
            let what = "request \(index): \(answer.method) \(answer.target) \(answer.headers)"
            #expect(answer.headers["x-content-type-options"] == "nosniff", "\(what)")
            #expect(answer.headers["connection"]?.lowercased() != "close", "\(what)")
            switch index % 7 {
            case 0:
                #expect(answer.status == 200, "\(what)")
                #expect(answer.headers["content-type"] == "text/html; charset=utf-8", "\(what)")
                #expect(answer.text.hasPrefix("<!DOCTYPE html>") && answer.text.contains("<h1>Ada Lovelace</h1>"), "\(what)")
            case 1:
                #expect(answer.status == 200, "\(what)")
                #expect(answer.body == ProcessCards.plain, "\(what)")
            case 2:
                #expect(answer.status == 200, "\(what)")
                #expect(answer.body.isEmpty, "\(what)")
                #expect(answer.headers["content-type"] == "application/json; charset=utf-8", "\(what)")
                #expect(Int(answer.headers["content-length"] ?? "") == answers[index + 1].body.count, "HEAD tells the GET's length: \(what)")
            case 3:
                #expect(answer.status == 200, "\(what)")
                let record = ((try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any])?["records"] as? [[String: Any]]
                #expect(record?.first?["recordName"] as? String == id, "\(what)")
                #expect(((record?.first?["fields"] as? [String: Any])?["vcard"] as? [String: Any])?["value"] as? String == card, "\(what)")
            case 4:
                #expect(answer.status == 304, "\(what)")
                #expect(answer.body.isEmpty, "\(what)")
                #expect(answer.headers["etag"] == answers[index - 3].headers["etag"], "\(what)")
            case 5:
                #expect(answer.status == 404, "\(what)")
                #expect(answer.headers["cache-control"] == "no-store", "\(what)")
                let record = ((try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any])?["records"] as? [[String: Any]]
                #expect(record?.first?["serverErrorCode"] as? String == "NOT_FOUND", "\(what)")
            default:
                #expect(answer.status == 200, "\(what)")
                #expect(answer.headers["content-type"] == "application/json", "\(what)")
                #expect(answer.text.contains("\"ABCDE12345.com.example.cards.Clip\""), "\(what)")
            }
        }
        try gateway.waitForAccessLines(70)
        #expect(gateway.accessLines.count == 70)
    }

    /// Four threads, each on its own connection from its own loopback
    /// address, ask at once; every answer is whole and right.
    static let concurrent = """
        import http.client, json, sys, threading
        port, live, each = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
        results = {}
        def client(address):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=(address, 0))
            seen = []
            for i in range(each):
                accept = "text/vcard" if i % 2 == 0 else "application/json"
                connection.request("GET", "/appclip?id=" + live, headers={"Accept": accept})
                response = connection.getresponse()
                seen.append([response.status, accept, response.read().decode("utf-8", "replace")])
            connection.close()
            results[address] = seen
        threads = [threading.Thread(target=client, args=("127.0.0.%d" % n,)) for n in range(11, 15)]
        for thread in threads: thread.start()
        for thread in threads: thread.join(30)
        print(json.dumps(results))
        """

    @Test func concurrentConnectionsFromSeveralAddressesAreAllServed() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let report = try PythonClient.report(
            PythonClient.run(Self.concurrent, [String(gateway.port), id, "25"], timeout: .seconds(60)), "http.client, four threads")
        #expect(Set(report.keys) == ["127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.14"])
        let card = String(decoding: ProcessCards.plain, as: UTF8.self)
        for (address, value) in report {
            let seen = value as? [[Any]] ?? []
            #expect(seen.count == 25, "\(address)")
            for entry in seen {
                #expect(entry.first as? Int == 200, "\(address): \(entry)")
                let body = entry.last as? String ?? ""
                if entry[1] as? String == "text/vcard" {
                    #expect(body == card, "\(address)")
                } else {
                    #expect(body.contains("\"recordName\":\"\(id)\""), "\(address): \(body)")
                }
            }
        }
    }
}
