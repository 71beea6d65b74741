import Glibc
import SharePrimitives

/// A command's standard input and output as a `ByteChannel`: the client's
/// end of `exec:ssh host sharelog serve --stdio`. The command runs under
/// `/bin/sh -c`; its standard error is this process's, so ssh can still
/// ask and complain. Closing the channel closes both pipes (the command
/// sees the end of its input) and reaps the command, ending it with
/// SIGTERM, then SIGKILL, if it has not exited within two seconds.
///
/// Not `Sendable`: as for `StdioChannel`, it belongs to one thread at a
/// time, and only that thread touches its pipes and the child. Debug
/// builds check every call.
public final class CommandChannel: ByteChannel {
    public let description: String
    /// The command, as given (`exec:COMMAND` without `exec:`).
    public let command: String
    private let pipes: StdioChannel
    private var child: pid_t
    /// The thread that may use the channel (and `pipes`, which check it too).
    private var owner = OwningThread()

    /// Starts `command`.
    ///
    /// - Throws: `TransportError.system` when the pipes or the process
    ///   cannot be made.
    public init(command: String) throws(TransportError) {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw .system(operation: "pipe", errno: errno) }
        guard pipe(&fromChild) == 0 else {
            let code = errno
            toChild.forEach { _ = Glibc.close($0) }
            throw .system(operation: "pipe", errno: code)
        }
        for end in [toChild[1], fromChild[0]] { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, toChild[0])
        posix_spawn_file_actions_addclose(&actions, fromChild[1])
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { word in strdup(word) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        _ = Glibc.close(toChild[0])
        _ = Glibc.close(fromChild[1])
        guard spawned == 0 else {
            _ = Glibc.close(toChild[1])
            _ = Glibc.close(fromChild[0])
            throw .system(operation: "posix_spawn /bin/sh", errno: spawned)
        }
        child = pid
        self.command = command
        pipes = StdioChannel(input: fromChild[0], output: toChild[1])
        description = "exec:\(command) (pid \(pid))"
    }

    /// Whichever thread drops the last reference is alone with the channel.
    deinit {
        adoptOnCurrentThread()
        close()
    }

    public func adoptOnCurrentThread() {
        owner.adoptCurrent()
        pipes.adoptOnCurrentThread()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) -> Int {
        try pipes.read(into: buffer, deadline: deadline)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws(TransportError) {
        try pipes.write(bytes, deadline: deadline)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?, readingAhead limit: Int) throws(TransportError) {
        try pipes.write(bytes, deadline: deadline, readingAhead: limit)
    }

    public func waitReadable(orWake wake: Int32?, deadline: ContinuousClock.Instant?) throws(TransportError) -> ChannelReadiness {
        try pipes.waitReadable(orWake: wake, deadline: deadline)
    }

    /// How the command ended, once it has ended by `deadline`; nil while
    /// it runs, and once it has been reaped (`close`, or an earlier
    /// answer). The pipes are left as they are.
    public func ended(by deadline: ContinuousClock.Instant) -> CommandExit? {
        owner.check(description)
        guard child > 0 else { return nil }
        var status: Int32 = 0
        while true {
            let reaped = waitpid(child, &status, WNOHANG)
            if reaped == child { break }
            if reaped < 0 && errno != EINTR { return nil }
            guard ContinuousClock.now < deadline else { return nil }
            usleep(10_000)
        }
        child = 0
        // WIFSIGNALED and WEXITSTATUS are macros Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? .exited(status: (status >> 8) & 0xff) : .killed(signal: signal)
    }

    public func close() {
        owner.check(description)
        pipes.close()
        guard child > 0 else { return }
        defer { child = 0 }
        var status: Int32 = 0
        let patience = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < patience {
            if waitpid(child, &status, WNOHANG) != 0 { return }
            usleep(10_000)
        }
        kill(child, SIGTERM)
        let grace = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < grace {
            if waitpid(child, &status, WNOHANG) != 0 { return }
            usleep(10_000)
        }
        kill(child, SIGKILL)
        _ = waitpid(child, &status, 0)
    }
}

/// How a command (`exec:COMMAND`) ended.
public enum CommandExit: Equatable, Sendable, CustomStringConvertible {
    /// It exited with this status: 127 and 126 are the shell's own, for a
    /// command it found nowhere on the `PATH` and one it could not run.
    case exited(status: Int32)
    /// A signal ended it.
    case killed(signal: Int32)

    public var description: String {
        switch self {
        case .exited(let status): "exit status \(status)"
        case .killed(let signal): "killed by signal \(signal)"
        }
    }
}
