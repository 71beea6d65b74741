import Foundation
import TestSupport

/// Side B's syncing client: one-shot `sharelog sync --both` sessions
/// against the server, one after another, a new one as soon as the last
/// ends. (Not `--both --follow`: docs/SYNC.md says a burst of batches on
/// both sides can stall such a session until the 30 s write timeout, and
/// commits of other processes reach a follower only on a heartbeat tick;
/// one-shot sessions never wait on either, and each start is one more
/// resume from the committed cursors.) Not thread-safe: the runner's
/// thread drives it.
final class SyncSessions {
    /// `sharelog` on B, as every session runs it.
    let command: SharelogCommand
    private let server: SyncServer
    private var session: Subprocess?
    /// The server's generation when the session started.
    private var startedUnder = 0
    /// Sessions that ended with status 0.
    private(set) var endedWell = 0
    /// Sessions that failed because the server was killed while they ran,
    /// or was down when they started.
    private(set) var failedWithServer = 0

    /// How long one session may take to end by itself once asked to.
    static let finishTimeout: Duration = .seconds(60)

    init(_ command: SharelogCommand, server: SyncServer) {
        self.command = command
        self.server = server
    }

    var arguments: [String] { ["sync", "--connect", server.endpoint, "--both", "--json"] }

    /// Whether a session process is running now.
    var isRunning: Bool { session?.isRunning ?? false }

    /// Reaps a session that ended and starts the next one.
    ///
    /// - Throws: `CrashViolation` for a session that failed while the
    ///   server stayed up.
    func service() throws {
        if let session {
            _ = session.readOutput(waitingAtMost: 0)
            guard !session.isRunning else { return }
            try reap(session)
        }
        try startSession()
    }

    /// SIGKILLs the running session, as a crash would, after a random
    /// pause of up to `microseconds`. When none is running then (the last
    /// one ended by itself; it is judged), a new one is started and killed
    /// at once, so every call kills a session.
    ///
    /// - Returns: whether a session ended by itself before the kill.
    func kill(afterAtMost microseconds: Int, using random: inout SeededGenerator) throws -> Bool {
        if !isRunning { try service() }
        usleep(UInt32(Int.random(in: 0...microseconds, using: &random)))
        let endedFirst = !isRunning
        if endedFirst { try service() }
        guard let session else { return endedFirst }
        session.kill()
        let outcome = try session.finish(timeout: .seconds(30))
        self.session = nil
        if !outcome.signaled { try judge(outcome) }
        return endedFirst
    }

    /// Lets the running session end by itself and starts no other.
    ///
    /// - Throws: `CrashViolation` when it fails while the server is up,
    ///   `DeadlineExceeded` when it does not end within `finishTimeout`.
    func stop() throws {
        guard let session else { return }
        self.session = nil
        try judge(try session.finish(timeout: Self.finishTimeout))
    }

    private func startSession() throws {
        session = try command.start(arguments)
        startedUnder = server.generation
    }

    private func reap(_ session: Subprocess) throws {
        self.session = nil
        try judge(try session.finish(timeout: Self.finishTimeout))
    }

    /// A session that ended by itself must have ended well, unless the
    /// server was killed while it ran.
    private func judge(_ outcome: Subprocess.Outcome) throws {
        if !outcome.signaled, outcome.status == 0 {
            endedWell += 1
        } else if startedUnder != server.generation || !server.isRunning {
            failedWithServer += 1
        } else {
            throw CrashViolation("sharelog sync --both on B ended with \(outcome.signaled ? "signal" : "status") \(outcome.status) "
                + "while the server stayed up: \(String(decoding: outcome.error, as: UTF8.self))")
        }
    }
}
