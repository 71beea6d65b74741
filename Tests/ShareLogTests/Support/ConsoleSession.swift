import Foundation
import Glibc
import TestSupport

/// Runs a page's console blocks in order, as a newcomer would type them,
/// in one fresh folder that is also `$HOME`: commands go to `/bin/sh`
/// with standard error joined to standard output, and `sharelog` on the
/// `PATH` is the built binary with the clock fixed at `now` (unless a
/// command gives `--now`), so the times a page shows are the times it
/// prints. The folder holds `jane.vcf`, the card the pages share.
///
/// A command that runs until stopped (`serve`, `http`, `relay`, `sync
/// --follow`) is started in the background: the lines the page shows for
/// it must come within 30 s, and it runs on through the page's later
/// blocks (the "other terminal"), until `stop()`.
final class ConsoleSession {
    /// The page's clock: the README's share, made now with `--ttl 7d`,
    /// expires at 2026-12-06T12:39:07.761Z.
    static let now = "2026-11-29T12:39:07.761Z"
    static let jane = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Appleseed;Jane;;;\r\nFN:Jane Appleseed\r\nORG:Acme\r\nTITLE:Boss\r\nEND:VCARD\r\n"

    let folder = TemporaryDirectory("console")
    private(set) var match: ConsoleMatch
    private var background: [(command: String, process: Subprocess)] = []
    private let environment: [String: String]

    init() throws {
        let bin = folder.appending(".bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let real = CLI.executable.path
        let wrapper = """
            #!/bin/sh
            for word in "$@"; do case "$word" in --now|--now=*) exec '\(real)' "$@";; esac; done
            exec '\(real)' --now \(Self.now) "$@"

            """
        try wrapper.write(toFile: bin + "/sharelog", atomically: true, encoding: .utf8)
        guard chmod(bin + "/sharelog", 0o755) == 0 else { throw ConsoleFailure("chmod of the sharelog wrapper failed") }
        try Self.jane.write(toFile: folder.appending("jane.vcf"), atomically: true, encoding: .utf8)
        match = ConsoleMatch(home: folder.path)
        environment = CLI.inheritedEnvironment.merging(["HOME": folder.path, "PATH": "\(bin):/usr/bin:/bin", "LANG": "C.UTF-8"]) { _, new in new }
    }

    deinit { stop() }

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
