import Foundation
import Glibc

/// A child process for tests: started with `posix_spawn`, fed and drained
/// through pipes with `poll`, and reaped with `waitpid`, every wait under a
/// `Deadline`.
///
/// Not Foundation's `Process`: its exit monitoring runs on run-loop timers,
/// which under libfaketime (the year-ahead run of `Scripts/test`) sometimes
/// never fire, so `waitUntilExit` hung the run; and it has no deadline. Here
/// nothing waits on a timer but `poll`'s relative timeout.
///
/// Not thread-safe: one thread drives a subprocess.
public final class Subprocess {
    /// How a finished subprocess ended and what it printed.
    public struct Outcome: Sendable {
        /// The exit status, or the signal number for a process a signal ended.
        public let status: Int32
        /// True when a signal ended it (SIGKILL from `kill()` or a deadline).
        public let signaled: Bool
        public let output: [UInt8]
        public let error: [UInt8]
    }

    public let pid: pid_t
    /// The write end of its standard input; -1 once closed.
    private var input: Int32
    /// The read ends of its standard output and error.
    private let outputDescriptor: Int32, errorDescriptor: Int32
    /// Read ends not yet at end of file.
    private var open: Set<Int32>
    private var outputBytes: [UInt8] = []
    private var errorBytes: [UInt8] = []
    private var waitStatus: Int32?

    /// Starts `executable arguments…` with exactly `environment`, its
    /// standard input, output and error on pipes.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var ends: [Int32] = [-1, -1]
            // Close-on-exec from the start, so no child another thread spawns
            // meanwhile inherits a copy, and every pipe reaches end of file
            // when this child ends.
            guard systemPipe2(&ends, O_CLOEXEC) == 0 else { throw Self.failure("pipe2", errno) }
            pipes.append(ends)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copies, so only these three survive the exec.
        posix_spawn_file_actions_adddup2(&actions, pipes[0][0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, pipes[1][1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, pipes[2][1], STDERR_FILENO)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        for end in [pipes[0][0], pipes[1][1], pipes[2][1]] { close(end) }
        guard spawned == 0 else {
            for end in [pipes[0][1], pipes[1][0], pipes[2][0]] { close(end) }
            throw Self.failure("posix_spawn \(executable)", spawned)
        }
        self.pid = pid
        input = pipes[0][1]
        outputDescriptor = pipes[1][0]
        errorDescriptor = pipes[2][0]
        open = [outputDescriptor, errorDescriptor]
        for descriptor in [input, outputDescriptor, errorDescriptor] { _ = fcntl(descriptor, F_SETFL, O_NONBLOCK) }
        // 1 MiB pipes for what it prints, not 64 KiB (1 MiB is Linux's
        // default pipe-max-size): a server that logs a burst of lines
        // between two reads of its test would block on the write, and
        // answer nobody, until the test reads again.
        for descriptor in [outputDescriptor, errorDescriptor] { _ = fcntl(descriptor, Self.setPipeSize, 1 << 20) }
    }

    deinit {
        for descriptor in open { close(descriptor) }
        if input >= 0 { close(input) }
        if waitStatus == nil {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }

    /// Runs a program to completion: writes `input` to it, collects what it
    /// prints. A program still running at `timeout` is killed and the call
    /// throws `DeadlineExceeded`.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        input: [UInt8] = [], timeout: Duration = .seconds(180)
    ) throws -> Outcome {
        try Subprocess(executable, arguments, environment: environment).finish(input: input, timeout: timeout)
    }

    /// Whether the process has not exited yet; reaps it once it has.
    public var isRunning: Bool {
        guard waitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        waitStatus = status
        return false
    }

    /// How it ended, once `isRunning` has seen it end: the exit status, or
    /// the signal number with `signaled`.
    public var termination: (status: Int32, signaled: Bool)? {
        guard let status = waitStatus else { return nil }
        let signal = status & 0x7F
        return signal != 0 ? (signal, true) : ((status >> 8) & 0xFF, false)
    }

    /// What it wrote to standard error so far (read by `readOutput` and `finish`).
    public var errorOutput: [UInt8] { errorBytes }

    /// Waits up to `milliseconds` for standard output and returns what one
    /// read got: empty when nothing came in time, nil at end of output.
    /// Standard error is drained on the way, so the child never blocks on it.
    public func readOutput(waitingAtMost milliseconds: Int32) -> [UInt8]? {
        closeInput()
        guard open.contains(outputDescriptor) else { return nil }
        let before = outputBytes.count
        var watched = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&watched, nfds_t(watched.count), milliseconds) > 0 else { return [] }
        for entry in watched where entry.revents != 0 { drain(entry.fd) }
        let read = Array(outputBytes[before...])
        outputBytes.removeSubrange(before...)
        return read.isEmpty && !open.contains(outputDescriptor) ? nil : read
    }

    /// Sends SIGKILL, as a crash would.
    public func kill() { if waitStatus == nil { Glibc.kill(pid, SIGKILL) } }

    /// Writes `input`, closes standard input, reads both outputs to their
    /// end and reaps the process. At `timeout` it kills the process, reaps
    /// it, and throws `DeadlineExceeded`.
    public func finish(input bytes: [UInt8] = [], timeout: Duration = .seconds(180)) throws -> Outcome {
        let deadline = Deadline("\(pid) finishes", timeout: timeout)
        var unsent = bytes[...]
        if unsent.isEmpty { closeInput() }
        while !open.isEmpty || input >= 0 {
            if deadline.hasPassed { kill() }
            var watched = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if input >= 0 { watched.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
            guard poll(&watched, nfds_t(watched.count), 100) >= 0 || errno == EINTR else { throw Self.failure("poll", errno) }
            for entry in watched where entry.revents != 0 {
                if entry.fd == input {
                    let (sent, failure) = unsent.withUnsafeBytes { Self.writeWithoutSIGPIPE(input, $0) }
                    if sent > 0 { unsent = unsent.dropFirst(sent) }
                    if unsent.isEmpty || (sent < 0 && failure == EPIPE) { closeInput() }
                } else {
                    drain(entry.fd)
                }
            }
        }
        try Deadline.block(until: "process \(pid) is reaped", timeout: .seconds(30), every: .milliseconds(2)) { !isRunning }
        let status = waitStatus ?? 0
        let signaled = status & 0x7F != 0
        let outcome = Outcome(
            status: signaled ? status & 0x7F : (status >> 8) & 0xFF, signaled: signaled,
            output: outputBytes, error: errorBytes)
        try deadline.check()
        return outcome
    }

    /// Reads what `descriptor` holds; closes it at end of file.
    private func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            if descriptor == outputDescriptor {
                outputBytes.append(contentsOf: buffer[..<count])
            } else {
                errorBytes.append(contentsOf: buffer[..<count])
            }
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
            close(descriptor)
            open.remove(descriptor)
        }
    }

    private func closeInput() {
        guard input >= 0 else { return }
        close(input)
        input = -1
    }

    /// `write(2)` once, with SIGPIPE blocked in this thread for the call,
    /// and its `errno` when it failed. A child that exits before it has read
    /// all of its input (a refused command line, a crash) leaves a pipe
    /// without a reader: the write then fails with EPIPE, which `finish`
    /// handles, and the SIGPIPE it raised is taken back before the mask is
    /// restored (unless one was pending already). Unblocked, that SIGPIPE
    /// would end the whole test process. Its disposition stays the default
    /// on purpose: tests rely on it to show the library never raises one.
    private static func writeWithoutSIGPIPE(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> (Int, Int32) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        var pending = sigset_t()
        sigpending(&pending)
        let wasPending = sigismember(&pending, SIGPIPE) == 1
        let sent = write(descriptor, bytes.baseAddress, bytes.count)
        let failure = sent < 0 ? errno : 0
        if failure == EPIPE, !wasPending {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipeSignal, nil, &now)
        }
        return (sent, failure)
    }

    /// Linux's `F_SETPIPE_SZ`, which the Glibc module does not export (it needs `_GNU_SOURCE`).
    private static let setPipeSize: Int32 = 1031

    private static func failure(_ call: String, _ code: Int32) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "\(call): \(String(cString: strerror(code)))"])
    }
}

/// glibc's `pipe2(2)`, which the Glibc module does not export (it needs
/// `_GNU_SOURCE`). The C signature is `int pipe2(int pipefd[2], int flags)`.
@_silgen_name("pipe2")
private func systemPipe2(_ descriptors: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
