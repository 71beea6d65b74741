import Foundation
import Glibc

/// A `sharelog http` process on one store: started on a free loopback
/// port (or the `--listen` given), waited for until it says where it
/// serves, and stopped with SIGTERM (SIGKILL at a deadline) or killed.
/// Its standard error, read while a test waits on it and when it stops,
/// holds its access log: one line a request.
///
/// Not thread-safe: the test's thread drives it.
public final class GatewayProcess {
    /// Its base URL, as its `sharelog: http: serving STORE at URL on
    /// ENDPOINT` line says it: `http://127.0.0.1:PORT` or `https://…`.
    public let baseURL: String
    /// The port it bound, for `tcp:` listeners; 0 for `unix:`.
    public let port: UInt16
    public var pid: pid_t { process.pid }
    private let process: WatchedProcess

    /// Starts `sharelog http --listen listen extra…` on `cli`'s store.
    public init(_ cli: SharelogCLI, listen: String = "tcp:127.0.0.1:0", extra: [String] = [], timeout: Duration = .seconds(30)) throws {
        process = try WatchedProcess(
            cli, ["http", "--listen", listen] + extra, what: "sharelog http --listen \(listen)", readiness: "says where it serves",
            timeout: timeout) { Self.servedURL($0) != nil }
        baseURL = process.lines.lazy.compactMap(Self.servedURL).first!
        port = baseURL.split(separator: ":").last.flatMap { UInt16($0) } ?? 0
    }

    /// The URL of a `sharelog: http: serving STORE at URL on ENDPOINT` line.
    private static func servedURL(_ line: String) -> String? {
        guard line.hasPrefix("sharelog: http: serving "), let at = line.range(of: " at ", options: .backwards),
              let on = line.range(of: " on ", options: .backwards), at.upperBound < on.lowerBound else { return nil }
        return String(line[at.upperBound..<on.lowerBound])
    }

    /// Every line it has written to standard error and this side has read.
    public var lines: [String] { process.lines }

    /// Its access log lines (`sharelog: http method=…`).
    public var accessLines: [String] { lines.filter { $0.hasPrefix("sharelog: http method=") } }

    /// Reads what it has written since, waiting at most 5 ms.
    public func pump() { process.pump() }

    /// SIGTERM; how it ended, with all it wrote. SIGKILL and a thrown
    /// `DeadlineExceeded` when it still runs after `timeout`.
    @discardableResult
    public func stop(timeout: Duration = .seconds(30)) throws -> CLIResult { try process.stop(timeout: timeout) }

    /// SIGKILL, as a crash would.
    public func kill() throws { try process.kill() }
}
