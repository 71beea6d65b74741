import Foundation
import Glibc
import Testing
import TestSupport

/// The deployment docs/SCALING.md describes, with nothing in front: a main
/// store served by `sharelog serve`, two read replicas that follow it
/// (`sync --follow` over a Unix socket, which needs no key), and a
/// `sharelog http` on each replica. What main writes, both gateways serve;
/// what main revokes, both answer 410. Every wait has a deadline.
@Suite(.serialized) struct GatewayReplicaTests {
    /// Polls `link` with curl until it answers `status`; throws at `timeout`,
    /// or when `follower` (the process that brings the change) has ended.
    static func waitForStatus(_ status: Int, _ link: String, _ what: String, gateway: GatewayProcess, follower: Subprocess, timeout: Duration = .seconds(45)) throws -> CurlAnswer {
        var last: CurlAnswer?
        try Deadline.block(until: "\(what) answers \(status)", timeout: timeout, every: .milliseconds(100)) {
            _ = follower.readOutput(waitingAtMost: 0)
            gateway.pump()
            guard follower.isRunning else {
                throw HarnessFailure.endedEarly("the follower of \(what)", before: "it brought the change", log: String(decoding: follower.errorOutput, as: UTF8.self))
            }
            last = try CurlClient.fetch(link, ["-H", "Accept: application/json"])
            return last?.status == status
        }
        return last!
    }

    @Test func twoGatewaysOnTwoReplicasServeWhatMainWritesAndRevokes() throws {
        let main = try ProcessStore("replicas")
        let directory = main.directory
        let replicas = ["a", "b"].map { SharelogCLI(store: directory.appending("replica-\($0)"), now: ProcessClock.created, timeout: .seconds(30)) }
        let first = try main.share(ProcessCards.plain)

        let server = try WatchedProcess(
            main.cli(at: ProcessClock.created), ["serve", "--listen", "unix:" + directory.appending("main.sock"), "--heartbeat", "1"],
            what: "sharelog serve", readiness: "says where it serves", timeout: .seconds(30)) { $0.hasPrefix("sharelog: serving ") }
        defer { _ = try? server.stop(timeout: .seconds(20)) }
        let followers = try replicas.map {
            try $0.start(["sync", "--connect", "unix:" + directory.appending("main.sock"), "--follow", "--heartbeat", "1", "--peer-timeout", "120"])
        }
        defer { followers.forEach { $0.kill() } }
        // Each replica has the first share before its gateway opens it.
        for (replica, follower) in zip(replicas, followers) {
            try Deadline.block(until: "share \(first) reaches \(replica.store)", timeout: .seconds(45), every: .milliseconds(50)) {
                _ = follower.readOutput(waitingAtMost: 0)
                guard follower.isRunning else {
                    throw HarnessFailure.endedEarly("sync --follow", before: "it brought \(first)", log: String(decoding: follower.errorOutput, as: UTF8.self))
                }
                return try replica.run("share", "get", first, "--vcard").output == ProcessCards.plain
            }
        }
        // Polling for a share that is not there yet is a miss: no limits here.
        let gateways = try replicas.map {
            try GatewayProcess(SharelogCLI(store: $0.store, now: ProcessClock.serving), extra: ProcessApps.arguments + ["--no-rate-limit"])
        }
        defer { gateways.forEach { _ = try? $0.stop() } }
        #expect(Set(gateways.map(\.port)).count == 2)
        for gateway in gateways {
            let card = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + first, ["-H", "Accept: text/vcard"])
            #expect(card.status == 200 && card.body == ProcessCards.plain, "\(gateway.baseURL)")
        }

        let card = ProcessCards.card(name: "Katherine Johnson", family: "Johnson", given: "Katherine", title: "Mathematician", organization: "NASA", png: [])
        let second = try main.share(card)
        let missing = try CurlClient.fetch(gateways[0].baseURL + "/appclip?id=" + second, ["-H", "Accept: application/json"])
        #expect([200, 404].contains(missing.status))
        for (index, gateway) in gateways.enumerated() {
            let answer = try Self.waitForStatus(200, gateway.baseURL + "/appclip?id=" + second, "gateway \(index)'s new share", gateway: gateway, follower: followers[index])
            let record = ((try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["records"] as? [[String: Any]])?.first
            #expect(record?["recordName"] as? String == second)
            #expect(((record?["fields"] as? [String: Any])?["vcard"] as? [String: Any])?["value"] as? String == String(decoding: card, as: UTF8.self))
            let vcard = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + second, ["-H", "Accept: text/vcard"])
            #expect(vcard.body == card, "the card, byte for byte, on gateway \(index)")
        }

        try main.revoke(second, at: "2026-03-03T15:30:00Z")
        for (index, gateway) in gateways.enumerated() {
            let answer = try Self.waitForStatus(410, gateway.baseURL + "/appclip?id=" + second, "gateway \(index)'s revoked share", gateway: gateway, follower: followers[index])
            let record = ((try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["records"] as? [[String: Any]])?.first
            #expect(record?["serverErrorCode"] as? String == "EXPIRED")
            #expect(record?["expiryReason"] as? String == "revoked")
            #expect(record?["expiredAt"] as? Int == 1_772_551_800_000, "2026-03-03T15:30:00Z")
            #expect(!answer.text.contains("Katherine"))
            let page = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + second)
            #expect(page.status == 410 && page.text.contains("withdrew"), "gateway \(index)")
            let still = try CurlClient.fetch(gateway.baseURL + "/appclip?id=" + first, ["-H", "Accept: text/vcard"])
            #expect(still.status == 200 && still.body == ProcessCards.plain, "the other share is untouched on gateway \(index)")
        }
        for gateway in gateways {
            let ended = try gateway.stop()
            #expect(ended.succeeded, "\(ended.error)")
            #expect(!ended.error.contains(second) && !ended.error.contains(first), "no record name in a gateway's log")
        }
    }
}
