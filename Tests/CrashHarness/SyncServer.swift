import Foundation
import TestSupport

/// `sharelog serve --listen unix:SOCKET` on side A of the pair: started,
/// drained (its log of one line per session goes to standard error), and
/// killed with SIGKILL as a crash would. Not thread-safe: the runner's
/// thread drives it.
final class SyncServer {
    private let command: SharelogCommand
    let socket: String
    private var process: Subprocess?
    /// Incremented at each kill, so a session can tell whether the server
    /// died while it ran.
    private(set) var generation = 0

    /// How long a server may take to say it serves.
    static let startTimeout: Duration = .seconds(30)

    init(_ command: SharelogCommand, socket: String) {
        self.command = command
        self.socket = socket
    }

    var endpoint: String { "unix:\(socket)" }

    /// Whether a server process is up (started and not yet seen to end).
    var isRunning: Bool { process?.isRunning ?? false }

    /// Starts the server and waits until it says where it serves (a
    /// killed server's socket file is stale; the new one replaces it).
    ///
    /// - Throws: `CrashViolation` when it ends first or says nothing in time.
    func start() throws {
        let process = try command.start(["serve", "--listen", endpoint])
        self.process = process
        let deadline = Deadline("sharelog serve says it serves", timeout: Self.startTimeout)
        while !Self.log(of: process).contains("sharelog: serving ") {
            guard process.isRunning else {
                throw CrashViolation("sharelog serve on \(command.store) ended before it served: \(Self.log(of: process))")
            }
            if deadline.hasPassed {
                throw CrashViolation("sharelog serve on \(command.store) said nothing within \(Self.startTimeout): \(Self.log(of: process))")
            }
            _ = process.readOutput(waitingAtMost: 5)
        }
    }

    /// Reads what it logged meanwhile, so its pipe never fills.
    func pump() { _ = process?.readOutput(waitingAtMost: 0) }

    /// SIGKILL; reaps it.
    ///
    /// - Throws: `DeadlineExceeded` when it cannot be reaped.
    func kill() throws {
        guard let process else { return }
        process.kill()
        _ = try process.finish(timeout: .seconds(30))
        self.process = nil
        generation += 1
    }

    /// Its standard error so far, the lines of a server that ended included.
    var log: String { process.map(Self.log) ?? "" }

    private static func log(of process: Subprocess) -> String { String(decoding: process.errorOutput, as: UTF8.self) }
}
