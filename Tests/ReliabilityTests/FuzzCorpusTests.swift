import Foundation
import FuzzTargets
import Testing

/// Replays the regression corpus (Tests/FuzzCorpus/TARGET/: inputs the
/// fuzzers found, each once a crash or a broken contract, now fixed) and
/// every target's seeds through the same entry points libFuzzer calls: no
/// input may trap or break a contract, and every refusal explains itself.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus")

    static func inputs(of target: FuzzTarget) throws -> [(name: String, bytes: [UInt8])] {
        let directory = corpus.appendingPathComponent(target.rawValue)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map { name in
            (name, Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func theRegressionCorpusReplaysCleanly(_ target: FuzzTarget) throws {
        let inputs = try Self.inputs(of: target)
        #expect(!inputs.isEmpty, "Tests/FuzzCorpus/\(target.rawValue) is empty")
        for input in inputs {
            let outcome = try target.run(input.bytes)
            if case .rejected(let reason) = outcome { #expect(!reason.isEmpty, "\(input.name)") }
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func theSeedsReplayCleanly(_ target: FuzzTarget) throws {
        #expect(!target.seeds.isEmpty)
        let outcomes = try target.seeds.map { try target.run($0) }
        #expect(outcomes.contains { if case .accepted = $0 { true } else { false } })
    }

    @Test func theCodecRefusesFlagsItCannotKeep() throws {
        let inputs = try Self.inputs(of: .codec)
        let found = try #require(inputs.first { $0.name == "undefined-flag-on-share-created" })
        #expect(try FuzzTarget.codec.run(found.bytes) == .rejected("event of kind 1 sets flags 182 that format 1 does not define"))
    }

    /// The frame decoder refuses a length over the limit from its 4 bytes,
    /// in the read that brings them, before any payload is buffered.
    @Test func anOversizedLengthIsRefusedFromItsFourBytes() throws {
        let inputs = try Self.inputs(of: .frame)
        let found = try #require(inputs.first { $0.name == "oversized-length-alone-in-a-read" })
        #expect(try FuzzTarget.frame.run(found.bytes) == .rejected(
            "the peer sent a frame of 4294967295 payload bytes, over the limit of 4194304: "
                + "it is not a ShareLog sync peer, or it sends batches larger than this side accepts"))
    }

    /// Well-formed exchanges converge: each seed session ends well, with
    /// exactly the events its script sends or its store holds.
    @Test func wellFormedExchangesConverge() throws {
        let expected = [
            "server: received 0 (0 new), sent 2, found 0, unknown 0, snapshots 0, log at 2, cursor ",
            "server: received 0 (0 new), sent 2, found 0, unknown 0, snapshots 0, log at 2, cursor ",
            "server: received 3 (3 new), sent 0, found 0, unknown 0, snapshots 0, log at 3, cursor 3",
            "mainClient: received 2 (2 new), sent 0, found 0, unknown 0, snapshots 0, log at 2, cursor 2",
            "mainClient: received 1 (1 new), sent 2, found 0, unknown 0, snapshots 0, log at 3, cursor 1",
            "mainClient: received 2 (2 new), sent 0, found 0, unknown 0, snapshots 1, log at 2, cursor 2",
            "clipClient: received 3 (3 new), sent 0, found 2, unknown 1, snapshots 0, log at 3, cursor ",
            "server: received 0 (0 new), sent 0, found 0, unknown 0, snapshots 0, log at 2, cursor ",
        ]
        #expect(try FuzzTarget.exchange.seeds.map { try FuzzTarget.exchange.run($0) } == expected.map(FuzzOutcome.accepted))
    }

    /// Each well-formed session, the machine alone, runs to its end: a
    /// client's directions done, a server's peer gone, or a claim to more
    /// of this side's events than it made refused.
    @Test func wellFormedSessionsRunToTheirEnd() throws {
        let expected = [
            "client main pull: messages 3, events applied 2, acks 1, batches sent 0, complete",
            "server main pull: messages 4, events applied 0, acks 0, batches sent 2, ended",
            "client main pull+push: messages 4, events applied 1, acks 1, batches sent 1, complete",
            "server main pull+follow: messages 4, events applied 0, acks 0, batches sent 2, ended",
            "server main push: messages 3, events applied 2, acks 1, batches sent 0, ended",
            "client main pull: messages 5, events applied 3, acks 1, batches sent 0, complete",
            "server main pull: messages 4, events applied 0, acks 0, batches sent 0, ended",
            "client clip: messages 2, events applied 2, acks 0, batches sent 0, complete",
            "server clip: messages 3, events applied 0, acks 0, batches sent 0, ended",
            "server main pull: messages 3, events applied 0, acks 0, batches sent 1, ended",
        ]
        let own = "replica 5a5a5a5a-5a5a-4a5a-8a5a-5a5a5a5a5a5a"
        let refusal = ": refused before any event was sent, and the id kept. If that replica's store was restored in place from an older copy "
            + "together with its high-water file, stop writing to it and run 'sharelog renew-identity' on it; otherwise the other store is wrong (docs/SYNC.md \"Identity\")"
        var outcomes = expected.map(FuzzOutcome.accepted)
        outcomes.insert(contentsOf: [
            .rejected("\(own) made 1 events under its id, and its peer claims to hold 3 of them" + refusal),
            .rejected("\(own) made 0 events under its id, and its peer claims to hold 1 of them" + refusal),
        ], at: 9)
        #expect(try FuzzTarget.session.seeds.map { try FuzzTarget.session.run($0) } == outcomes)
    }

    /// A message the session may not take now is refused with the typed
    /// error that names it, whatever its type: the target has checked the
    /// machine's every answer before it against the reference.
    @Test(arguments: [
        ("fetch-to-a-main-session", "the peer sent fetch while in a main session; it does not follow the protocol"),
        ("records-to-a-server", "the peer sent records while not fetching; it does not follow the protocol"),
        ("bye-to-a-client", "the peer sent bye while the client's directions were not done (only a client ends a session); it does not follow the protocol"),
        ("welcome-after-the-handshake", "the peer sent welcome while established; it does not follow the protocol"),
        ("batch-to-a-side-that-only-sends", "the peer sent batch while not receiving in this session; it does not follow the protocol"),
        ("pull-to-a-side-that-only-receives", "the peer sent pull while not sending in this session; it does not follow the protocol"),
        ("ack-before-any-batch", "the peer acknowledged position 1, and only 0 was sent"),
        ("second-snapshot-required", "the peer asked for a second snapshot in one session; stopping rather than looping"),
        ("client-both-ways-second-pull-while-one-is-held",
         "the peer sent pull while a pull was already waiting for this side's own pull to catch up; it does not follow the protocol"),
    ])
    func theMachineRefusesWhatMayNotComeNow(_ name: String, _ reason: String) throws {
        let inputs = try Self.inputs(of: .session)
        let found = try #require(inputs.first { $0.name == name })
        #expect(try FuzzTarget.session.run(found.bytes) == .rejected(reason))
    }

    /// A peer that breaks the protocol ends the session with the typed
    /// error that names what it did; the target has checked that the store
    /// holds nothing of the frame that broke it (the first batch of
    /// `client-cursor-moved-back` stays, the second is not written).
    @Test(arguments: [
        ("client-cursor-moved-back", "the peer sent a batch through position 3, behind the cursor at 5"),
        ("server-ack-before-any-pull", "the peer acknowledged position 1, and only 0 was sent"),
        ("client-second-snapshot", "the peer asked for a second snapshot in one session; stopping rather than looping"),
        ("server-pull-frame-cut-short", "the peer closed the connection before the session ended"),
    ])
    func aPeerOutOfProtocolEndsTheSession(_ name: String, _ reason: String) throws {
        let inputs = try Self.inputs(of: .exchange)
        let found = try #require(inputs.first { $0.name == name })
        #expect(try FuzzTarget.exchange.run(found.bytes) == .rejected(reason))
    }
}
