import Foundation
import Glibc
import TestSupport

/// Holds a store's one LMDB write transaction open, from a Python process
/// (python3-lmdb, on the same liblmdb), until `release`: any `sharelog`
/// process that begins a write transaction on the store waits for it,
/// and opening a store begins one. So a test can stop a `sharelog`
/// process at a known point, just before it writes to that store, and
/// kill it there. The held transaction writes nothing; python3-lmdb opens
/// the environment without `MDB_WRITEMAP`, so it never resizes the file.
/// Not thread-safe: the test's thread drives it.
final class WriteLockHolder {
    static let python = "/usr/bin/python3"
    private static let script = """
        import lmdb, signal, sys
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        env = lmdb.open(sys.argv[1], create=False)
        txn = env.begin(write=True)
        print("held", flush=True)
        signal.sigwait({signal.SIGTERM})
        txn.abort()
        env.close()
        """

    private let process: Subprocess
    private let path: String

    /// Starts holding the write transaction of the store at `path` (it must
    /// exist); returns once it holds it.
    init(store path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw HarnessFailure.unexpected("\(Self.python) is missing: install python3 and python3-lmdb")
        }
        self.path = path
        process = try Subprocess(Self.python, ["-c", Self.script, path], environment: [:])
        var output: [UInt8] = []
        try Deadline.block(until: "python3-lmdb holds the write transaction of \(path)", timeout: .seconds(30)) {
            output += process.readOutput(waitingAtMost: 5) ?? []
            return output.starts(with: Array("held\n".utf8)) || !process.isRunning
        }
        guard process.isRunning else {
            let ended = CLIResult(try process.finish(timeout: .seconds(10)))
            throw HarnessFailure.endedEarly("python3-lmdb on \(path)", before: "it held the write lock", log: ended.error)
        }
    }

    /// Ends the held transaction without writing (SIGTERM tells the Python
    /// process to abort it), and waits until the process has exited.
    func release() throws {
        Glibc.kill(process.pid, SIGTERM)
        _ = try CLIResult(process.finish(timeout: .seconds(30))).checked("python3-lmdb holding the write lock of \(path)")
    }
}
