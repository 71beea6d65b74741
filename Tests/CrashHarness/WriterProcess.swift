import Foundation
import Glibc
import TestSupport

/// A crash-test writer running as a child process, and the lines it printed.
///
/// Started with `posix_spawn` and reaped with `waitpid(WNOHANG)` polled
/// against a deadline, not through Foundation's `Process`: its exit
/// monitoring runs on run-loop timers, which never fire under libfaketime,
/// and its `waitUntilExit` has no deadline. Here nothing waits on a timer
/// but `poll`'s relative timeout.
///
/// Not thread-safe: the runner drives every writer from one thread.
final class WriterProcess {
    let slot: Int
    let pid: pid_t
    /// The read end of the pipe on the writer's standard output.
    let descriptor: Int32
    private var pending: [UInt8] = []
    private var finishedOutput = false
    private var closed = false
    /// The `waitpid` status, once the process is reaped.
    private var waitStatus: Int32?

    /// How long a SIGKILLed writer may take to be reaped. Longer means the
    /// kernel could not end it (stuck in an uninterruptible disk wait): the
    /// run fails instead of hanging.
    static let reapTimeout: Duration = .seconds(30)

    /// Starts `executable arguments…` with its standard output on a pipe and
    /// this process's standard error and environment.
    ///
    /// - Throws: `CrashViolation` when the pipe or the process cannot be made.
    init(executable: URL, arguments: [String], slot: Int) throws(CrashViolation) {
        self.slot = slot
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw CrashViolation("cannot make the output pipe of writer \(slot): \(String(cString: strerror(errno)))")
        }
        // Close-on-exec, so the runner's other writers inherit no copy of
        // either end and the pipe reaches end of file when this writer dies.
        // (A process another thread spawns in between may still inherit
        // one; `kill` does not rely on end of file.)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copy, so only standard output survives the exec.
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw CrashViolation("cannot start writer \(slot) (\(executable.path)): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        descriptor = ends[0]
    }

    deinit {
        if !closed { close(descriptor) }
    }

    /// Whether the process has exited (by itself or killed); reaps it if so.
    var hasExited: Bool { reap() }

    /// How the process ended, once it has.
    var status: String {
        guard let waitStatus else { return "still running" }
        let signal = waitStatus & 0x7f
        return signal == 0 ? "exited with status \((waitStatus >> 8) & 0xff)" : "killed by signal \(signal)"
    }

    /// Reads what the pipe holds now, at most one `read`, and returns the
    /// complete lines. Call when `poll` reports the descriptor readable.
    func readAvailable() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return [] }
        if count <= 0 {
            finishedOutput = true
            return []
        }
        pending.append(contentsOf: buffer[..<count])
        return takeLines()
    }

    /// Whether the pipe has reached end of file.
    var outputClosed: Bool { finishedOutput }

    /// Kills the process with SIGKILL, as a crash would, reaps it, and
    /// returns the complete lines it printed that were not yet read. A
    /// partial last line (impossible with single small writes) is dropped.
    ///
    /// - Throws: `DeadlineExceeded` when the process is not gone within
    ///   `reapTimeout`; its lines are then lost with the run.
    func kill() throws -> [String] {
        if !reap() { Glibc.kill(pid, SIGKILL) }
        try Deadline.block(until: "writer \(slot) (pid \(pid)) is gone after SIGKILL", timeout: Self.reapTimeout) { reap() }
        var lines: [String] = []
        // The writer is dead and reaped: everything it wrote is in the pipe.
        // Read until end of file, or until a poll finds nothing, whichever
        // comes first (another process may hold a copy of the write end).
        var descriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while !finishedOutput, poll(&descriptor, 1, 0) > 0 {
            lines += readAvailable()
        }
        close(self.descriptor)
        closed = true
        return lines
    }

    /// Reaps the process if it has exited, without blocking.
    private func reap() -> Bool {
        guard waitStatus == nil else { return true }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return false }
        waitStatus = status
        return true
    }

    private func takeLines() -> [String] {
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return lines
    }
}
