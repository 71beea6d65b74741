import Foundation
import ShareLog
import Testing
import TestSupport
@testable import ShareSync

/// What a main holding the key can claim (see `HostileNetworkTests`).
extension HostileNetworkTests {
    // MARK: 9. A claim to events the server never made

    /// A main holding the key pulls claiming to hold more of the server's
    /// own events than the server made. Before, the server took a new
    /// replica id and epoch on that word alone, which sends every follower
    /// a snapshot; now it refuses the pull with nothing sent, keeps its id
    /// and epoch, says so in its log, and serves a good main as before.
    @Test(arguments: [UInt64(HostileNetworkBench.shares + 1), 1_000_000])
    func aClaimToEventsTheServerNeverMadeIsRefusedAndRenewsNothing(claim: UInt64) throws {
        let bench = try HostileNetworkBench()
        let identity = { () throws -> [String] in
            let stats = try bench.main.run("stats", "--json").json
            return [stats["replicaID"] as? String ?? "?", stats["epoch"] as? String ?? "?"]
        }
        let before = try identity()
        let server = try bench.serve(bench.unixListen)
        defer { _ = try? server.stop() }

        let attacker = try RawPeer(try HostileNetworkBench.endpoint(server))
        var handshake = ClientHandshake(
            role: .main, directions: .pull, replica: HostileNetworkBench.replica(9), epoch: Epoch("0000000d-0000-4000-8000-0000000000e9")!,
            key: bench.key, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)
        try attacker.send(HostileNetworkBench.frame(handshake.start))
        for message in try handshake.receive(try #require(try attacker.receive())) { try attacker.send(HostileNetworkBench.frame(message)) }
        let acceptance = try #require(try attacker.receive())
        _ = try handshake.receive(acceptance)
        try attacker.send(HostileNetworkBench.frame(.pull(Message.Pull(
            knownEpoch: nil, after: 0, follow: false, maxBatchBytes: 1 << 20, heldOfYou: claim))))
        let answer = try RawPeer.messages(in: attacker.readUntilClosed())
        #expect(answer.count == 1, "the attacker got \(answer)")
        guard case .error(let code, let text)? = answer.first else {
            Issue.record("the attacker got \(answer), not an error alone")
            return
        }
        #expect(code == .unmadeEventsClaimed)
        #expect(text.contains("made \(HostileNetworkBench.shares) events") && text.contains("claims to hold \(claim)"), "\(text)")
        #expect(try identity() == before, "the server's replica id and epoch after the claim")

        try bench.expectGoodMain(server.endpoint, "after the claim", events: HostileNetworkBench.shares)
        #expect(try identity() == before)
        let log = try server.stop()
        #expect(log.succeeded)
        #expect(server.closedLines.contains { $0.contains("claims to hold \(claim)") && $0.contains("renew-identity") }, "\(server.lines)")
    }
}
