import Foundation
import Glibc
import TestSupport

/// A `sharelog serve --listen unix:PATH` process on one store.
///
/// `init` returns once the server has logged that it is serving. `stop`
/// sends SIGTERM and waits for the process to end, with SIGKILL at its
/// deadline. Tests stop it in a `defer`; a server nobody stopped is
/// killed when its `Subprocess` goes. Driven from one thread, like
/// `Subprocess`. Its log (standard error, one line per session) is read
/// when it stops: a server must not log more than a pipe holds (64 KiB,
/// some 250 sessions) before then.
final class ServeProcess {
    let socket: String
    private let process: Subprocess
    private var outcome: CLIResult?

    /// Starts the server on `cli`'s store at `socket`, with `extra`
    /// arguments (`--heartbeat 1`), and waits until it serves.
    init(_ cli: SharelogCLI, socket: String, extra: [String] = []) throws {
        self.socket = socket
        process = try cli.start(["serve", "--listen", "unix:\(socket)"] + extra)
        let deadline = Deadline("the server on \(socket) says it is serving", timeout: .seconds(30))
        while !log.contains("sharelog: serving ") {
            guard process.readOutput(waitingAtMost: 20) != nil, process.isRunning else {
                let ended = try process.finish(timeout: .seconds(10))
                throw ServeFailure(log: String(decoding: ended.error, as: UTF8.self))
            }
            try deadline.check()
        }
    }

    /// What the server wrote to standard error and this side has read.
    private var log: String { String(decoding: process.errorOutput, as: UTF8.self) }

    /// The `connect` argument of `sync` for this server.
    var endpoint: String { "unix:\(socket)" }

    /// Stops the server with SIGTERM and returns how it ended; SIGKILL
    /// (and a thrown `DeadlineExceeded`) when it is still running after
    /// `timeout`. Calling it again returns the first answer.
    @discardableResult
    func stop(timeout: Duration = .seconds(20)) throws -> CLIResult {
        if let outcome { return outcome }
        if process.isRunning { Glibc.kill(process.pid, SIGTERM) }
        let ended = SharelogCLI.result(of: try process.finish(timeout: timeout))
        outcome = ended
        return ended
    }
}
