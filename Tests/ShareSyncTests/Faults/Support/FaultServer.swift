import Foundation
import Glibc
import ShareSync
import TestSupport

/// A `sharelog serve` process on a store: started, watched through its
/// standard error (one line per session), and stopped with SIGTERM, then
/// SIGKILL after a deadline, or killed outright with SIGKILL.
///
/// Not thread-safe: the test's thread drives it, like its `Subprocess`.
final class FaultServer {
    let process: Subprocess
    /// Where it listens, from its `serving STORE on ENDPOINT` line (the
    /// real port for `tcp:127.0.0.1:0`).
    private(set) var endpoint: Endpoint = .stdio

    /// Starts `sharelog serve --listen listen extra…` on `store` and waits
    /// until it says where it serves.
    init(store: String, listen: String, extra: [String] = []) throws {
        process = try FaultCLI(store: store).start(["serve", "--listen", listen] + extra)
        var text: String?
        try Deadline.block(until: "sharelog serve says where it serves", timeout: .seconds(30)) {
            pump()
            text = lines.lazy.filter { $0.hasPrefix("sharelog: serving ") }.compactMap(Self.endpointText).first
            if text != nil { return true }
            guard process.isRunning else { throw FaultServerExited(lines: lines) }
            return false
        }
        guard let text else { throw FaultServerExited(lines: lines) }
        endpoint = try Endpoint(parsing: text)
    }

    deinit { stop() }

    /// The endpoint of a `sharelog: serving STORE on ENDPOINT` line.
    private static func endpointText(_ line: String) -> String? {
        line.range(of: " on ", options: .backwards).map { String(line[$0.upperBound...]) }
    }

    /// Every line it has written to standard error so far.
    var lines: [String] {
        String(decoding: process.errorOutput, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Its lines for sessions that ended early: `session …: closed: reason`.
    var closedLines: [String] { lines.filter { $0.hasPrefix("sharelog: session ") && $0.contains(": closed: ") } }

    /// Its lines for sessions that ended in good order.
    var endedWellLines: [String] { lines.filter { $0.hasPrefix("sharelog: session ") && $0.contains(": ended well;") } }

    /// Reads what it has written, without waiting.
    func pump() { _ = process.readOutput(waitingAtMost: 5) }

    /// Waits until it has logged `count` closed sessions in all.
    func waitForClosedLines(_ count: Int, timeout: Duration = .seconds(30)) throws {
        try Deadline.block(until: "the server logs \(count) closed sessions; it logged: \(lines)", timeout: timeout, every: .milliseconds(5)) {
            pump()
            return closedLines.count >= count
        }
    }

    /// Waits until it has logged `count` sessions that ended well in all.
    func waitForEndedWellLines(_ count: Int, timeout: Duration = .seconds(30)) throws {
        try Deadline.block(until: "the server logs \(count) sessions ended well; it logged: \(lines)", timeout: timeout, every: .milliseconds(5)) {
            pump()
            return endedWellLines.count >= count
        }
    }

    /// SIGTERM, then SIGKILL if it has not ended within 20 s; reaps it.
    func stop() {
        guard process.isRunning else { return }
        Glibc.kill(process.pid, SIGTERM)
        _ = try? process.finish(timeout: .seconds(20))
    }

    /// SIGKILL, as a crash would; reaps it.
    func kill() throws {
        process.kill()
        try Deadline.block(until: "the killed server is reaped", timeout: .seconds(30)) {
            pump()
            return !process.isRunning
        }
    }
}

/// `sharelog serve` ended before it said where it serves.
struct FaultServerExited: Error, CustomStringConvertible {
    let lines: [String]
    var description: String { "sharelog serve exited before serving: \(lines.joined(separator: " | "))" }
}
