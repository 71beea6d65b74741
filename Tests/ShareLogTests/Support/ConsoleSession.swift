import Foundation
import Glibc
import TestSupport

/// Runs a page's console blocks in order, as a newcomer would type them,
/// in one fresh folder that is also `$HOME`: commands go to `/bin/sh`
/// with standard error joined to standard output, and `sharelog` on the
/// `PATH` is the built binary with the clock fixed at `now` (unless a
/// command gives `--now`), so the times a page shows are the times it
/// prints. The folder starts empty: a page makes the files it uses (the
/// README writes `jane.vcf` in its first block).
///
/// A command that runs until stopped (`serve`, `http`, `relay`, `sync
/// --follow`) is started in the background: the lines the page shows for
/// it must come within 30 s, and it runs on through the page's later
/// blocks (the "other terminal"), until `stop()`.
final class ConsoleSession {
    /// The pages' clock, for a command that gives no `--now`: the
    /// README's replication share, made now with the default TTL, expires
    /// at 2026-12-06T12:39:07.761Z.
    static let now = "2026-11-29T12:39:07.761Z"

    let folder = TemporaryDirectory("console")
    private(set) var match: ConsoleMatch
    private var background: [(command: String, process: Subprocess)] = []
    private let environment: [String: String]

    /// A session whose clock, for commands without `--now`, is `now`.
    init(now: String = ConsoleSession.now) throws {
        let bin = folder.appending(".bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let real = CLI.executable.path
        let wrapper = """
            #!/bin/sh
            for word in "$@"; do case "$word" in --now|--now=*) exec '\(real)' "$@";; esac; done
            exec '\(real)' --now \(now) "$@"

            """
        try Self.writeExecutable(wrapper, to: bin + "/sharelog")
        match = ConsoleMatch(home: folder.path)
        environment = CLI.inheritedEnvironment.merging(["HOME": folder.path, "PATH": "\(bin):/usr/bin:/bin", "LANG": "C.UTF-8"]) { _, new in new }
    }

    deinit { stop() }

    /// Writes `text` to a new executable file at `path` through a
    /// descriptor closed on exec: a process another test spawns meanwhile
    /// must not keep the file open for writing, or every exec of it would
    /// fail with ETXTBSY ("Text file busy") while that process lives.
    private static func writeExecutable(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw ConsoleFailure("cannot make \(path): errno \(errno)") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard close(descriptor) == 0, written == bytes.count else { throw ConsoleFailure("cannot write \(path)") }
    }

    /// Runs `block`'s commands; returns what did not match, one entry a command.
    func run(_ block: ConsoleBlock) throws -> [String] {
        var failures: [String] = []
        for step in block.steps {
            let command = match.command(step.command)
            let script = "exec 2>&1; cd '\(folder.path)' && \(command)"
            let printed: String
            if Self.runsUntilStopped(command) {
                // `exec`: the process signalled at the end is the command itself.
                printed = try startInBackground("exec 2>&1; cd '\(folder.path)' || exit 1; exec \(command)", command: command, lines: step.expected.count)
            } else {
                let outcome = try Subprocess.run("/bin/sh", ["-c", script], environment: environment, timeout: .seconds(120))
                printed = String(decoding: outcome.output, as: UTF8.self)
                if outcome.status != 0 || outcome.signaled {
                    failures.append("\(block): `\(step.command)` exited \(outcome.status):\n\(printed)")
                    continue
                }
            }
            if let difference = match.compare(expected: step.expected, actual: printed) {
                failures.append("\(block): `\(step.command)`: \(difference)")
            }
        }
        return failures
    }

    /// Stops every background command (SIGTERM, then a wait).
    func stop() {
        for (_, process) in background where process.isRunning { kill(process.pid, SIGTERM) }
        for (_, process) in background { _ = try? process.finish(timeout: .seconds(30)) }
        background = []
    }

    static func runsUntilStopped(_ command: String) -> Bool {
        let words = Set(command.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        return words.contains("sharelog") && !words.isDisjoint(with: ["serve", "http", "relay", "--follow"])
    }

    /// Starts `script` and returns its first `lines` lines once they came.
    private func startInBackground(_ script: String, command: String, lines: Int) throws -> String {
        let process = try Subprocess("/bin/sh", ["-c", script], environment: environment)
        background.append((command, process))
        var printed: [UInt8] = []
        try Deadline.block(until: "`\(command)` prints its first \(lines) lines", timeout: .seconds(30)) {
            guard let more = process.readOutput(waitingAtMost: 100) else {
                throw ConsoleFailure("`\(command)` ended: \(String(decoding: printed, as: UTF8.self))")
            }
            printed += more
            return printed.count { $0 == UInt8(ascii: "\n") } >= lines
        }
        let text = String(decoding: printed, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines).joined(separator: "\n")
    }
}

struct ConsoleFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
