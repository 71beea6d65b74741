import Dispatch
import Glibc
import Synchronization

/// Kills a child process that outlives its deadline.
///
/// A test that spawns a process and then blocks on it (reading its output
/// to the end, waiting for its exit) would hang CI if the child hung. With a
/// watchdog armed, the child gets SIGKILL at the deadline instead: the
/// test's read ends, the child's status says it was killed, and the test
/// fails with the watchdog's message on standard error. Disarm it once the
/// child has exited, so a later process that reuses the pid is safe.
///
/// Its timer is Dispatch's, which does not fire under libfaketime; there the
/// deadlines of `Subprocess` and `Deadline`, which poll and sleep with
/// relative timeouts, are what stop a hang.
public final class Watchdog: Sendable {
    private let armed = Atomic<Bool>(true)
    private let fired = Atomic<Bool>(false)

    /// Arms a watchdog on `pid`. The default deadline is generous: a loaded
    /// two-core CI machine never trips it, a hung child still fails in minutes.
    public init(killing pid: pid_t, named name: String, after timeout: Duration = .seconds(180)) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            guard armed.exchange(false, ordering: .acquiringAndReleasing), Watchdog.isChild(pid) else { return }
            let message = "watchdog: \(name) (pid \(pid)) still running after \(timeout); killing it\n"
            _ = message.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
            fired.store(true, ordering: .releasing)
            kill(pid, SIGKILL)
        }
    }

    /// Whether `pid` is still a child of this process (running or not yet
    /// reaped), so a pid that an exited child left for reuse is never killed.
    private static func isChild(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0
    }

    /// Stops the watchdog; call it once the child has exited.
    public func disarm() { armed.store(false, ordering: .releasing) }

    /// Whether it killed the child.
    public var hasFired: Bool { fired.load(ordering: .acquiring) }
}
