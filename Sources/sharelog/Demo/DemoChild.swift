import Foundation
import Glibc

/// One `sharelog` process of the demo: this same executable, started with
/// `posix_spawn`, its standard input empty and its standard output and
/// error written to files in the demo's `logs` folder, where a newcomer can
/// read them afterwards and the demo reads what it waits for.
///
/// Every wait has a deadline, measured on the monotonic clock and polled
/// with `waitpid(WNOHANG)`: no run-loop timer, which libfaketime (the
/// year-ahead run of `Scripts/test`) can stall. A child still running at
/// its deadline is killed. Not thread-safe: the demo's thread drives it;
/// `DemoChildren` may signal its `pid` from a signal handler.
final class DemoChild {
    /// This executable, resolved once: every child is the same `sharelog`.
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

    let label: String
    let pid: pid_t
    /// Where its standard output and its standard error go.
    let outputPath: String
    let errorPath: String
    private var waitStatus: Int32?

    /// Starts `sharelog arguments…`, its output to `outputPath` (default
    /// `logs/label.out`) and its errors to `logs/label.log` under `logs`.
    init(_ label: String, _ arguments: [String], logs: String, outputPath: String? = nil) throws {
        self.label = label
        self.outputPath = outputPath ?? (logs as NSString).appendingPathComponent("\(label).out")
        errorPath = (logs as NSString).appendingPathComponent("\(label).log")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, self.outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // The demo ignores SIGINT and SIGTERM (`DemoChildren` handles them);
        // a child starts with their default actions instead, as from a shell.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let argv = ([Self.executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, Self.executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw CLIError.failure("cannot start sharelog \(arguments.joined(separator: " ")): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    deinit { stop(timeout: .seconds(5)) }

    /// Whether it has not exited yet; reaps it once it has.
    var isRunning: Bool {
        guard waitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        waitStatus = status
        return false
    }

    /// Its exit status once it exited (a signal's number plus 128 when a
    /// signal ended it, as a shell says), nil while it runs.
    var exitStatus: Int32? {
        guard !isRunning, let status = waitStatus else { return nil }
        let signal = status & 0x7F
        return signal != 0 ? 128 + signal : (status >> 8) & 0xFF
    }

    /// What it has written to standard output, and to standard error, so far.
    var output: String { Self.contents(of: outputPath) }
    var errors: String { Self.contents(of: errorPath) }

    /// Waits until it exits and returns its exit status.
    ///
    /// - Throws: `CLIError.failure` when it still runs after `timeout`; it
    ///   is killed first.
    func finish(timeout: Duration) throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            guard ContinuousClock.now < deadline else {
                stop(timeout: .seconds(5))
                throw CLIError.failure("\(label) did not finish within \(timeout); see \(errorPath)")
            }
            usleep(2_000)
        }
        return exitStatus ?? 1
    }

    /// Waits until its standard error holds a line containing `text`.
    ///
    /// - Throws: `CLIError.failure` when it exits first, or `timeout` passes.
    func waitForErrorLine(containing text: String, timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        while !errors.contains(text) {
            guard isRunning else { throw CLIError.failure("\(label) exited with status \(exitStatus ?? 1): \(lastLine(of: errors))") }
            guard ContinuousClock.now < deadline else { throw CLIError.failure("\(label) did not say '\(text)' within \(timeout)") }
            usleep(5_000)
        }
    }

    /// Asks it to stop (SIGTERM), then kills it (SIGKILL) if it still runs
    /// after `timeout`; reaps it either way.
    func stop(timeout: Duration) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline { usleep(2_000) }
        guard isRunning else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        waitStatus = status
    }

    private static func contents(of path: String) -> String {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private func lastLine(of text: String) -> String {
        text.split(separator: "\n").last.map(String.init) ?? "(it printed nothing)"
    }
}
