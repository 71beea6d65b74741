import Foundation
import ShareHTTP
import ShareLog
import Synchronization
import Testing
import TestSupport
import TestTraits

/// `GatewayClient.upload` against a real `sharelog http` (docs/HTTP.md
/// "Retries"): one share per key however often it is sent, the JSON form
/// for another TTL, a refusal that is not retried, and retries that end.
@Suite(.serialized, .hangDeadline) struct UploadClientTests {
    static let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Client Person\r\nEND:VCARD\r\n".utf8)
    /// 2026-03-04T12:00:00Z, the gateway's `--now`, in ms.
    static let serving = Timestamp(milliseconds: 1_772_625_600_000)

    @Test func anUploadRetriedUnderItsKeyMakesOneShare() throws {
        let fixture = try ProcessStore()
        let token = try WriteAPIProcessTests.token(fixture, "tool")
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let client = try GatewayClient()
        let first = try client.upload(ShareUpload(vCard: Self.card), to: gateway.baseURL, token: token, idempotencyKey: "run-1")
        #expect(first.createdAt == Self.serving)
        #expect(first.expiresAt.milliseconds == Self.serving.milliseconds + 7 * 86_400_000)
        #expect(first.link == "https://cards.example.com/appclip?id=\(first.recordName)")
        #expect(try client.upload(ShareUpload(vCard: Self.card), to: gateway.baseURL, token: token, idempotencyKey: "run-1") == first)
        let hour = try client.upload(ShareUpload(vCard: Self.card, ttl: .seconds(3600)), to: gateway.baseURL, token: token, idempotencyKey: "run-2")
        #expect(hour.expiresAt.milliseconds == Self.serving.milliseconds + 3_600_000, "the JSON form carries the TTL")
        let stats = try fixture.cli(at: ProcessClock.serving).run("stats", "--json").checked("stats")
        #expect(stats.json["live"] as? Int == 2)
    }

    @Test func aRefusalIsNotRetried() throws {
        let fixture = try ProcessStore()
        let token = try WriteAPIProcessTests.token(fixture, "tool")
        _ = try fixture.cli(at: ProcessClock.created).run("token", "revoke", "tool").checked("token revoke")
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        let pauses = Mutex(0)
        #expect(throws: GatewayClientError.uploadRefused(url: gateway.baseURL + "/v1/shares", status: 401, reason: "the token was revoked")) {
            try GatewayClient().upload(
                ShareUpload(vCard: Self.card), to: gateway.baseURL, token: token, idempotencyKey: "k", pause: { _ in pauses.withLock { $0 += 1 } })
        }
        #expect(pauses.withLock { $0 } == 0)
    }

    @Test func aGatewayThatIsNotThereIsTriedAsOftenAsThePolicySays() throws {
        // A port that was free a moment ago: nothing listens there.
        let port = try LoopbackSocket.freePorts(1)[0]
        let waits = Mutex<[Duration]>([])
        let policy = UploadRetryPolicy(attempts: 3)
        #expect {
            try GatewayClient().upload(
                ShareUpload(vCard: Self.card), to: "http://127.0.0.1:\(port)", token: "slt_x", idempotencyKey: "k", policy: policy,
                pause: { wait in waits.withLock { $0.append(wait) } })
        } throws: { error in
            guard case .retriesExhausted(_, let attempts, _) = error as? GatewayClientError else { return false }
            return attempts == 3
        }
        let taken = waits.withLock { $0 }
        #expect(taken.count == 2, "a pause between attempts, none after the last")
        #expect(taken.count == 2 && taken[0] >= .milliseconds(250) && taken[0] <= .milliseconds(500) && taken[1] >= .milliseconds(500)
            && taken[1] <= .seconds(1), "\(taken)")
    }
}

extension UploadClientTests {
    @Test func shareCreateOverHTTPUploadsOnceUnderItsKey() throws {
        let fixture = try ProcessStore()
        let token = try WriteAPIProcessTests.token(fixture, "cli")
        let tokenFile = fixture.directory.appending("token")
        // What `token create > F` leaves in F: the token among other lines.
        try Data("token:   \(token)\nname:    cli\nscopes:  upload\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let gateway = try fixture.gateway()
        defer { _ = try? gateway.stop() }
        // Another machine's CLI: it has no store, only the token.
        let remote = SharelogCLI(store: fixture.directory.appending("no-store-here"), now: ProcessClock.serving)
        let upload = ["share", "create", "-", "--http", gateway.baseURL, "--token-file", tokenFile, "--idempotency-key", "cli-1", "--json"]
        let first = try remote.run(arguments: upload, input: Self.card).checked("share create --http")
        let id = try #require(first.json["id"] as? String)
        #expect(first.json["idempotencyKey"] as? String == "cli-1")
        #expect(first.json["createdAt"] as? String == "2026-03-04T12:00:00.000Z")
        let again = try remote.run(arguments: upload, input: Self.card).checked("share create --http, again")
        #expect(again.json["id"] as? String == id, "the same key names the same share")
        #expect(!FileManager.default.fileExists(atPath: remote.store), "no store is made")
        let fetched = try fixture.cli(at: ProcessClock.serving).run("share", "get", id, "--vcard").checked("share get")
        #expect(fetched.output == Self.card)
        let stats = try fixture.cli(at: ProcessClock.serving).run("stats", "--json").checked("stats")
        #expect(stats.json["live"] as? Int == 1)

        try Data("slt_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let refused = try remote.run(arguments: upload, input: Self.card)
        #expect(refused.status == 1)
        #expect(refused.error.contains("refused the upload with 401: the token is not known here"), "\(refused.error)")
        let bad = try remote.run(arguments: ["share", "create", "-", "--http", gateway.baseURL], input: Self.card)
        #expect(bad.status == 2, "--http without --token-file is a usage error: \(bad.error)")
        let bothStdin = try remote.run(
            arguments: ["share", "create", "-", "--http", gateway.baseURL, "--token-file", "-"], input: Self.card)
        #expect(bothStdin.status == 2 && bothStdin.error.contains("cannot both come from standard input"), "\(bothStdin.error)")
        let badKey = try remote.run(
            arguments: ["share", "create", "-", "--http", gateway.baseURL, "--token-file", tokenFile, "--idempotency-key", "two words"], input: Self.card)
        #expect(badKey.status == 5, "a key the gateway would refuse is refused before sending: \(badKey.error)")
        #expect(badKey.error.contains("--idempotency-key"))
        try Data("not a token\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let malformed = try remote.run(arguments: upload, input: Self.card)
        #expect(malformed.status == 5 && malformed.error.contains("holds no token"), "refused before sending: \(malformed.error)")
    }
}
