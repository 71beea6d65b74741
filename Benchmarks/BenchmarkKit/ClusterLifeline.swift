import Foundation
import TestSupport

/// A shell beside the relay workload's nats-servers that stops them when
/// this process dies, as the Redis baseline's servers are stopped
/// (`cb_redis_server.c`): a killed benchmark leaves no cluster listening.
///
/// The shell reads its standard input, a pipe whose only writer is this
/// process (`Subprocess` makes its pipes close-on-exec, so no other child
/// holds it); end of file there means this process is gone, and the shell
/// sends SIGTERM to each server that still runs a config under the
/// cluster's directory (so a pid reused since is never hit). While this
/// process lives the cluster stops its servers itself, and `release`
/// kills the shell first.
///
/// Not thread-safe: the thread that drives the cluster drives it.
final class ClusterLifeline {
    private let shell: Subprocess

    /// The shell's script: `$0` is the cluster's directory, the rest the
    /// servers' pids.
    private static let script = """
        read -r line
        for pid in "$@"; do
            case "$(tr '\\000' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" in
                *nats-server*"$0"/*) kill -TERM "$pid" ;;
            esac
        done
        """

    /// Starts the shell for the servers `pids`, whose configs are under `directory`.
    init(stopping pids: [pid_t], configsUnder directory: String) throws {
        shell = try Subprocess("/bin/sh", ["-c", Self.script, directory] + pids.map { String($0) }, environment: [:])
    }

    deinit { release() }

    /// Kills the shell and reaps it, leaving the servers alone; a second
    /// call does nothing more.
    func release() {
        guard shell.isRunning else { return }
        shell.kill()
        _ = try? shell.finish(timeout: .seconds(10))
    }
}
