import Foundation
import Testing
import TestSupport
import TestTraits

/// Uploads whose gateway is killed with SIGKILL at a random moment around
/// the commit (issue 32): before the share is made, between its commit and
/// the answer, or after the answer. Whatever the moment, the client's retry
/// under the same key, to a gateway started again on the same store, gets
/// a 201 naming exactly one share for that key, and the store verifies.
/// The seed is printed; `SHARELOG_KILL_SEED` replays it.
@Suite(.serialized, .hangDeadline) struct WriteAPIKillTests {
    static let kills = 20

    /// Sends one upload under KEY, prints `sent` once the request is out,
    /// then its status and record name, or `lost` when the connection died.
    static let uploadOnce = """
        import http.client, json, sys
        port, token, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        card = ("BEGIN:VCARD\\r\\nVERSION:3.0\\r\\nFN:Killed %s\\r\\nEND:VCARD\\r\\n" % key).encode()
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        c.putrequest("POST", "/v1/shares")
        for name, value in [("Authorization", "Bearer " + token), ("Idempotency-Key", key), ("Content-Type", "text/vcard"),
                            ("Content-Length", str(len(card)))]:
            c.putheader(name, value)
        c.endheaders(card)
        print("sent", flush=True)
        try:
            r = c.getresponse()
            print(json.dumps({"status": r.status, "name": json.loads(r.read()).get("recordName")}))
        except Exception:
            print(json.dumps({"status": "lost"}))
        """

    @Test func everyRetryAfterAKillMakesExactlyOneShare() throws {
        let seed = ProcessInfo.processInfo.environment["SHARELOG_KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("WriteAPIKillTests: seed \(seed) (replay with SHARELOG_KILL_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let fixture = try ProcessStore()
        let token = try WriteAPIProcessTests.token(fixture, "ios-app")
        // Live shares and logged events: one creation per key, never two.
        let stats = { () throws -> (live: Int, events: Int) in
            let printed = try fixture.cli(at: ProcessClock.serving).run("stats", "--json").checked("stats")
            return (printed.json["live"] as? Int ?? -1, printed.json["events"] as? Int ?? -1)
        }
        var landed: [String: Int] = [:]
        var names: Set<String> = []
        for kill in 0..<Self.kills {
            let key = "kill-\(kill)"
            let gateway = try fixture.gateway()
            let client = BackgroundScript(try PythonClient.start(Self.uploadOnce, [String(gateway.port), token, key]), what: "upload \(key)")
            try client.wait(forLine: "sent", gateway: gateway)
            Thread.sleep(forTimeInterval: Double(UInt64.random(in: 0..<4_000, using: &random)) * 1e-6)
            try gateway.kill()
            let answer = try client.finish(gateway: nil, timeout: .seconds(30))
            let made = try stats().events - kill
            let moment = answer["status"] as? Int == 201 ? "after the answer" : made == 1 ? "between the commit and the answer" : "before the commit"
            landed[moment, default: 0] += 1
            #expect(made == 0 || made == 1, "a kill leaves at most the one share: \(made)")

            let again = try fixture.gateway()
            let retried = try CurlClient.fetch(again.baseURL + "/v1/shares", [
                "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Idempotency-Key: \(key)", "-H", "Content-Type: text/vcard",
                "--data-binary", "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Killed \(key)\r\nEND:VCARD\r\n",
            ])
            _ = try again.stop()
            #expect(retried.status == 201, "\(key), killed \(moment): \(retried.text)")
            let name = (try? JSONSerialization.jsonObject(with: Data(retried.body)) as? [String: Any])?["recordName"] as? String
            if let first = answer["name"] as? String { #expect(name == first, "the retry names the share the first answer named") }
            if let name { names.insert(name) }
            let after = try stats()
            #expect(after.live == kill + 1 && after.events == kill + 1, "\(key): one share, one creation, however the kill landed: \(after)")
        }
        print("WriteAPIKillTests: kills landed \(landed.sorted { $0.key < $1.key })")
        #expect(names.count == Self.kills)
        _ = try fixture.cli(at: ProcessClock.serving).run("verify").checked("verify")
    }
}
