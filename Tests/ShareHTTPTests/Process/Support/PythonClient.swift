import Foundation
import TestSupport

/// Debian's Python 3 running a script given on its command line
/// (`python3 -c SCRIPT ARG…`): its standard library's `http.client` and
/// raw sockets are clients nobody here wrote. Scripts print their findings
/// as JSON on standard output; the test holds the expectations.
enum PythonClient {
    static let executable = "/usr/bin/python3"
    /// Python's environment: no user site, no bytecode files, UTF-8 output.
    static let environment = ["PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"]

    /// Runs `script` with `arguments` to its end, killed at `timeout`.
    static func run(_ script: String, _ arguments: [String], timeout: Duration = .seconds(30)) throws -> CLIResult {
        CLIResult(try Subprocess.run(executable, ["-c", script] + arguments, environment: environment, timeout: timeout))
    }

    /// Starts `script` with `arguments` and returns at once.
    static func start(_ script: String, _ arguments: [String]) throws -> Subprocess {
        try Subprocess(executable, ["-c", script] + arguments, environment: environment)
    }

    /// The one JSON object a finished script printed; throws with its
    /// standard error when it failed or printed none.
    static func report(_ result: CLIResult, _ what: String) throws -> [String: Any] {
        guard result.succeeded, !result.json.isEmpty else {
            throw HarnessFailure.failed("python3 (\(what))", status: result.status, log: result.error + result.text)
        }
        return result.json
    }
}

/// A script that runs in the background while the test does other things:
/// its standard output is read line by line as it comes, and the gateway's
/// log is read meanwhile, so neither pipe fills.
final class BackgroundScript {
    private let process: Subprocess
    private let what: String
    private var printed: [UInt8] = []
    private var ended = false

    init(_ process: Subprocess, what: String) {
        self.process = process
        self.what = what
    }

    /// The lines it has printed so far.
    var lines: [String] { String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init) }

    /// Reads what it printed, waiting at most `milliseconds`.
    func pump(waitingAtMost milliseconds: Int32 = 5) {
        guard !ended else { return }
        if let read = process.readOutput(waitingAtMost: milliseconds) { printed += read } else { ended = true }
    }

    /// Waits until it prints a line equal to `line`, reading `gateway`'s log meanwhile.
    func wait(forLine line: String, gateway: GatewayProcess, timeout: Duration = .seconds(30)) throws {
        try Deadline.block(until: "\(what) prints \(line)", timeout: timeout, every: .milliseconds(5)) {
            pump()
            gateway.pump()
            if lines.contains(line) { return true }
            guard process.isRunning || !ended else {
                throw HarnessFailure.endedEarly(what, before: "it printed \(line)", log: String(decoding: process.errorOutput, as: UTF8.self))
            }
            return false
        }
    }

    /// Waits for it to end, reading `gateway`'s log meanwhile; kills it
    /// and throws at `timeout`. Returns the one JSON object it printed last;
    /// throws with its standard error when it failed or printed none.
    func finish(gateway: GatewayProcess?, timeout: Duration) throws -> [String: Any] {
        try Deadline.block(until: "\(what) ends", timeout: timeout, every: .milliseconds(2)) {
            pump(waitingAtMost: 20)
            gateway?.pump()
            return ended
        }
        let outcome = try process.finish(timeout: .seconds(10))
        let output = String(decoding: printed + outcome.output, as: UTF8.self)
        let last = output.split(separator: "\n").last.map(String.init) ?? ""
        guard outcome.status == 0, !outcome.signaled,
              let report = (try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any] else {
            throw HarnessFailure.failed(what, status: outcome.signaled ? -outcome.status : outcome.status, log: String(decoding: outcome.error, as: UTF8.self) + output)
        }
        return report
    }

    deinit { process.kill() }
}
