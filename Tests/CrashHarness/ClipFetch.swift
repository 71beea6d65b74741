import Foundation
import ShareLog
import TestSupport

/// `sharelog clip open LINK --connect … --vcard` against side A's server,
/// into the pair's clip store, one at a time, each answer judged against
/// what the history says the share must answer. Not thread-safe: the
/// runner's thread drives it.
final class ClipFetch {
    /// What a fetch must answer, decided when it starts.
    struct Expectation {
        let name: RecordName
        /// The card a live answer must print byte for byte.
        let card: Int
        /// Whether a revoked answer (exit 4) is right…
        let mayBeRevoked: Bool
        /// …and whether a live one is.
        let mayBeLive: Bool

        /// What `model` says `creation` must answer.
        init(_ creation: SyncModel.Creation, in model: SyncModel) {
            name = creation.name
            card = creation.card
            mayBeRevoked = model.revokeBegun(creation.name)
            mayBeLive = model.revokes[creation.name] == nil
        }
    }

    private let command: SharelogCommand
    private let server: SyncServer
    private var running: (process: Subprocess, expected: Expectation, generation: Int)?
    /// What the running fetch printed so far (`readOutput` hands it over once).
    private var printed: [UInt8] = []
    /// Fetches whose answer was checked…
    private(set) var checked = 0
    /// …and fetches that failed because the server was killed meanwhile.
    private(set) var failedWithServer = 0

    init(_ command: SharelogCommand, server: SyncServer) {
        self.command = command
        self.server = server
    }

    var isRunning: Bool { running != nil }

    /// The App Clip link of `name` on the default domain, written out by
    /// hand (docs/CLI.md), not made by the code under test.
    static func link(_ name: RecordName) -> String { "https://cards.example.com/appclip?id=\(name)" }

    /// Starts a fetch of `expected.name`.
    func start(_ expected: Expectation) throws {
        let process = try command.start(["clip", "open", Self.link(expected.name), "--connect", server.endpoint, "--vcard"])
        running = (process, expected, server.generation)
        printed = []
    }

    /// Judges a fetch that has ended.
    ///
    /// - Throws: `CrashViolation` for a wrong answer.
    func service() throws {
        guard let running else { return }
        printed += running.process.readOutput(waitingAtMost: 0) ?? []
        guard !running.process.isRunning else { return }
        try finish()
    }

    /// Waits for the running fetch and judges it.
    ///
    /// - Throws: `CrashViolation` for a wrong answer, `DeadlineExceeded`
    ///   for a fetch that does not end within 60 s.
    func finish() throws {
        guard let running else { return }
        self.running = nil
        let outcome = try running.process.finish(timeout: .seconds(60))
        let expected = running.expected
        let card = CrashCard.bytes(index: expected.card)
        let output = printed + outcome.output
        if !outcome.signaled, outcome.status == 0, expected.mayBeLive, output == card || output == card + [0x0A] {
            checked += 1
        } else if !outcome.signaled, outcome.status == 4, expected.mayBeRevoked {
            checked += 1
        } else if !outcome.signaled, outcome.status == 1, running.generation != server.generation || !server.isRunning {
            failedWithServer += 1
        } else {
            let said = outcome.status == 0 ? "\(output.count) bytes that are not card \(expected.card)" : String(decoding: outcome.error, as: UTF8.self)
            throw CrashViolation("clip open of share \(expected.name) (card \(expected.card)) from A ended with "
                + "\(outcome.signaled ? "signal" : "status") \(outcome.status) and \(said); it must answer "
                + [expected.mayBeLive ? "live with its card" : nil, expected.mayBeRevoked ? "revoked (exit 4)" : nil]
                    .compactMap { $0 }.joined(separator: " or "))
        }
    }
}
