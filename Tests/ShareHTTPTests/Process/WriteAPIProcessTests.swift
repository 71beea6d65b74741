import Foundation
import Testing
import TestSupport
import TestTraits

/// The write API of a real `sharelog http` (docs/HTTP.md "The write API"),
/// driven by curl as a developer would try it and by Python's
/// `http.client` as an app's many requests would come: every status, the
/// same upload made once however often it is sent, and a token revoked by
/// another process refused at the next request.
@Suite(.serialized, .hangDeadline) struct WriteAPIProcessTests {
    /// A token made by `sharelog token create` at the fixtures' creation time.
    static func token(_ fixture: ProcessStore, _ name: String, scope: String = "upload,revoke,read") throws -> String {
        let made = try fixture.cli(at: ProcessClock.created).run("token", "create", "--name", name, "--scope", scope, "--json").checked("token create")
        guard let token = made.json["token"] as? String else { throw HarnessFailure.unexpected("token create printed no token: \(made.text)") }
        return token
    }

    /// `curl -X method url` with the token, an Idempotency-Key and a body.
    static func call(
        _ method: String, _ url: String, token: String? = nil, key: String? = nil, type: String = "text/vcard", body: [UInt8]? = nil,
        in directory: TemporaryDirectory
    ) throws -> CurlAnswer {
        var options = ["-X", method]
        if let token { options += ["-H", "Authorization: Bearer \(token)"] }
        if let key { options += ["-H", "Idempotency-Key: \(key)"] }
        if let body {
            let file = directory.appending("body-\(UUID().uuidString)")
            try Data(body).write(to: URL(fileURLWithPath: file))
            options += ["-H", "Content-Type: \(type)", "--data-binary", "@" + file]
        }
        return try CurlClient.fetch(url, options)
    }

    static func json(_ answer: CurlAnswer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any] ?? [:]
    }

    /// 2026-03-04T12:00:00Z, the gateway's `--now`, in ms.
    static let servingMilliseconds: Int64 = 1_772_625_600_000

    @Test func everyStatusOfAnUploadAsCurlSeesIt() throws {
        let fixture = try ProcessStore()
        let token = try Self.token(fixture, "ios-app")
        let reader = try Self.token(fixture, "dashboard", scope: "read")
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let url = gateway.baseURL + "/v1/shares", dir = fixture.directory
        let card = ProcessCards.plain

        let anonymous = try Self.call("POST", url, key: "k1", body: card, in: dir)
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate") == "Bearer")
        #expect(try Self.call("POST", url, token: "slt_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", key: "k1", body: card, in: dir).status == 401)
        #expect(try Self.call("POST", url, token: reader, key: "k1", body: card, in: dir).status == 403)
        #expect(try Self.call("POST", url, token: token, body: card, in: dir).status == 400, "no Idempotency-Key")

        let made = try Self.call("POST", url, token: token, key: "k1", body: card, in: dir)
        #expect(made.status == 201)
        let share = Self.json(made)
        let id = try #require(share["recordName"] as? String)
        #expect(share["link"] as? String == "https://cards.example.com/appclip?id=\(id)")
        #expect((share["createdAt"] as? NSNumber)?.int64Value == Self.servingMilliseconds)
        #expect((share["expiresAt"] as? NSNumber)?.int64Value == Self.servingMilliseconds + 7 * 86_400_000)
        #expect(made.header("Location") == "/v1/shares/\(id)")
        #expect(made.header("Cache-Control") == "no-store")

        let again = try Self.call("POST", url, token: token, key: "k1", body: card, in: dir)
        #expect(again.status == 201 && again.body == made.body, "a retry gets the first answer")
        #expect(again.header("Idempotent-Replayed") == "true")
        let other = try Self.call("POST", url, token: token, key: "k1", body: ProcessCards.hostile, in: dir)
        #expect(other.status == 422 && Self.json(other)["serverErrorCode"] as? String == "IDEMPOTENCY_KEY_REUSED")

        #expect(try Self.call("POST", url, token: token, key: "k2", type: "application/xml", body: card, in: dir).status == 415)
        let badCard = try Self.call("POST", url, token: token, key: "k3", body: Array("FN:Secret Person\r\n".utf8), in: dir)
        #expect(badCard.status == 422)
        #expect(!badCard.text.contains("Secret Person"), "an error never quotes the card: \(badCard.text)")
        let huge = [UInt8](repeating: UInt8(ascii: "x"), count: 1_048_576 + 65_537)
        #expect(try Self.call("POST", url, token: token, key: "k4", body: huge, in: dir).status == 413)
        let json = Array(#"{"vcard":"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Json Person\r\nEND:VCARD\r\n","ttl":3600}"#.utf8)
        let hour = try Self.call("POST", url, token: token, key: "k5", type: "application/json", body: json, in: dir)
        #expect(hour.status == 201)
        #expect((Self.json(hour)["expiresAt"] as? NSNumber)?.int64Value == Self.servingMilliseconds + 3_600_000)
        // Made once each: k1 and k5.
        let listed = try fixture.cli(at: ProcessClock.serving).run("stats", "--json").checked("stats")
        #expect(listed.json["live"] as? Int == 2, "\(listed.text)")
    }

    @Test func revokeAndTheOwnersViewAsCurlSeesThem() throws {
        let fixture = try ProcessStore()
        let token = try Self.token(fixture, "ios-app")
        let uploader = try Self.token(fixture, "uploader", scope: "upload")
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let url = gateway.baseURL + "/v1/shares/" + id, dir = fixture.directory

        let live = try Self.call("GET", url, token: token, in: dir)
        #expect(live.status == 200)
        #expect(Self.json(live)["state"] as? String == "live")
        #expect(try Self.call("DELETE", url, token: uploader, in: dir).status == 403)
        #expect(try Self.call("DELETE", url, in: dir).status == 401)
        #expect(try Self.call("DELETE", url, token: token, in: dir).status == 204)
        let twice = try Self.call("DELETE", url, token: token, in: dir)
        #expect(twice.status == 410)
        let ended = Self.json(try Self.call("GET", url, token: token, in: dir))
        #expect(ended["state"] as? String == "ended")
        #expect(ended["endReason"] as? String == "revoked")
        #expect((ended["endedAt"] as? NSNumber)?.int64Value == Self.servingMilliseconds)
        let unknown = gateway.baseURL + "/v1/shares/6a9f0b4e-3c1d-4e2f-8a7b-9c0d1e2f3a4b"
        #expect(try Self.call("DELETE", unknown, token: token, in: dir).status == 404)
        #expect(try Self.call("GET", unknown, token: token, in: dir).status == 404)
        #expect(try Self.call("GET", gateway.baseURL + "/v1/shares/not-a-uuid", token: token, in: dir).status == 400)
        let put = try Self.call("PUT", url, token: token, in: dir)
        #expect(put.status == 405 && put.header("Allow") == "GET, HEAD, DELETE")
        // The audit: token, action and outcome; never the record name.
        try gateway.waitForAccessLines(10)
        let audit = gateway.accessLines.filter { $0.contains("route=/v1/shares") }
        #expect(audit.contains { $0.contains("token=ios-app action=revoke outcome=revoked") }, "\(audit)")
        #expect(!audit.contains { $0.contains(id) })
    }

    @Test func aTokenRevokedByAnotherProcessIsRefusedAtTheNextRequest() throws {
        let fixture = try ProcessStore()
        let token = try Self.token(fixture, "ios-app")
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let url = gateway.baseURL + "/v1/shares", dir = fixture.directory
        #expect(try Self.call("POST", url, token: token, key: "before", body: ProcessCards.plain, in: dir).status == 201)
        _ = try fixture.cli(at: ProcessClock.serving).run("token", "revoke", "ios-app").checked("token revoke")
        let after = try Self.call("POST", url, token: token, key: "after", body: ProcessCards.plain, in: dir)
        #expect(after.status == 401)
        #expect(Self.json(after)["reason"] as? String == "the token was revoked")
    }

    /// Uploads `count` cards at once from as many threads, under keys
    /// `prefix-0…`, with `http.client`; prints the statuses and record names.
    static let concurrentUploads = """
        import http.client, json, sys, threading
        port, token, prefix, count = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
        results = [None] * count
        def upload(i):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            card = ("BEGIN:VCARD\\r\\nVERSION:3.0\\r\\nFN:Person %d\\r\\nEND:VCARD\\r\\n" % i).encode()
            c.request("POST", "/v1/shares", body=card, headers={"Authorization": "Bearer " + token,
                      "Idempotency-Key": "%s-%d" % (prefix, i), "Content-Type": "text/vcard"})
            r = c.getresponse()
            results[i] = (r.status, json.loads(r.read()).get("recordName"))
        threads = [threading.Thread(target=upload, args=(i,)) for i in range(count)]
        for t in threads: t.start()
        for t in threads: t.join(60)
        print(json.dumps({"statuses": sorted(set(s for s, _ in results)), "names": [n for _, n in results]}))
        """

    @Test func aHundredConcurrentUploadsMakeAHundredSharesAndTheirRetriesNone() throws {
        let fixture = try ProcessStore()
        let token = try Self.token(fixture, "ios-app")
        let gateway = try fixture.gateway(at: ProcessClock.serving, ProcessApps.arguments + ["--threads", "4", "--max-per-address", "200", "--write-limit", "1000,1ms"])
        defer { _ = try? gateway.stop() }
        let port = String(gateway.port)
        let first = try PythonClient.report(try PythonClient.run(Self.concurrentUploads, [port, token, "card", "100"], timeout: .seconds(120)), "uploads")
        #expect(first["statuses"] as? [Int] == [201])
        let names = first["names"] as? [String] ?? []
        #expect(Set(names).count == 100)
        let retried = try PythonClient.report(try PythonClient.run(Self.concurrentUploads, [port, token, "card", "100"], timeout: .seconds(120)), "retries")
        #expect(retried["statuses"] as? [Int] == [201])
        #expect(retried["names"] as? [String] == names, "each retry names the share its key made")
        let stats = try fixture.cli(at: ProcessClock.serving).run("stats", "--json").checked("stats")
        #expect(stats.json["live"] as? Int == 100, "\(stats.text)")
        #expect(try fixture.cli(at: ProcessClock.serving).run("verify").checked("verify").status == 0)
    }
}
