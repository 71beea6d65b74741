import Foundation
import Glibc
import TestSupport

/// A `sharelog serve` process on one store: started, watched through its
/// standard error (one line per session), and stopped with SIGTERM, then
/// SIGKILL at a deadline, or killed outright as a crash would.
///
/// `init` returns once the server has said where it serves. Tests stop it
/// in a `defer`; one nobody stopped is stopped when it goes (`WatchedProcess`).
/// Its log is read while a test waits on it and when it stops. Not
/// thread-safe: the test's thread drives it.
final class ServeProcess {
    /// Where it serves, as its `sharelog: serving STORE on ENDPOINT` line
    /// says it (the real port for `tcp:127.0.0.1:0`): the `--connect`
    /// argument of `sync`.
    let endpoint: String
    /// Its process id, for reading its figures in /proc.
    var pid: pid_t { process.pid }
    private let process: WatchedProcess

    /// Starts `sharelog serve --listen listen extra…` on `cli`'s store
    /// (`listen` as `unix:PATH` or `tcp:127.0.0.1:0`, `extra` such as
    /// `--heartbeat 1`) and waits until it says where it serves.
    init(_ cli: SharelogCLI, listen: String, extra: [String] = []) throws {
        process = try WatchedProcess(
            cli, ["serve", "--listen", listen] + extra, what: "sharelog serve --listen \(listen)", readiness: "says where it serves",
            timeout: .seconds(30)) { Self.servedEndpoint($0) != nil }
        endpoint = process.lines.lazy.compactMap(Self.servedEndpoint).first!
    }

    /// Starts `sharelog serve --listen unix:socket extra…` on `cli`'s store
    /// and waits until it serves.
    convenience init(_ cli: SharelogCLI, socket: String, extra: [String] = []) throws {
        try self.init(cli, listen: "unix:\(socket)", extra: extra)
    }

    /// The endpoint of a `sharelog: serving STORE on ENDPOINT` line; nil
    /// for any other line.
    private static func servedEndpoint(_ line: String) -> String? {
        guard line.hasPrefix("sharelog: serving ") else { return nil }
        return line.range(of: " on ", options: .backwards).map { String(line[$0.upperBound...]) }
    }

    /// Every line it has written to standard error and this side has read
    /// (see `pump`).
    var lines: [String] { process.lines }

    /// Its lines for sessions that ended early: `session …: closed: reason`.
    var closedLines: [String] { lines.filter { $0.hasPrefix("sharelog: session ") && $0.contains(": closed: ") } }

    /// Its lines for sessions that ended in good order.
    var endedWellLines: [String] { lines.filter { $0.hasPrefix("sharelog: session ") && $0.contains(": ended well;") } }

    /// Reads what it has written since, waiting at most 5 ms.
    func pump() { process.pump() }

    /// Waits until it has logged `count` closed sessions in all.
    func waitForClosedLines(_ count: Int, timeout: Duration = .seconds(30)) throws {
        try waitForLines(count, "closed sessions", timeout: timeout) { closedLines }
    }

    /// Waits until it has logged `count` sessions that ended well in all.
    func waitForEndedWellLines(_ count: Int, timeout: Duration = .seconds(30)) throws {
        try waitForLines(count, "sessions ended well", timeout: timeout) { endedWellLines }
    }

    private func waitForLines(_ count: Int, _ what: String, timeout: Duration, _ matching: () -> [String]) throws {
        try Deadline.block(until: "the server logs \(count) \(what); it logged: \(lines)", timeout: timeout, every: .milliseconds(5)) {
            pump()
            return matching().count >= count
        }
    }

    /// Stops the server with SIGTERM and returns how it ended, with all it
    /// logged; SIGKILL (and a thrown `DeadlineExceeded`) when it is still
    /// running after `timeout`. Once it has ended, by `stop` or `kill`,
    /// returns that first answer.
    @discardableResult
    func stop(timeout: Duration = .seconds(20)) throws -> CLIResult { try process.stop(timeout: timeout) }

    /// SIGKILL, as a crash would; reaps it and reads the rest of its log.
    func kill() throws { try process.kill() }
}
