import Foundation
import Glibc
import TestSupport

/// The `lmdb-peer` executable run as a second read-write process, driven
/// line by line: it says what it did, and waits for `go()` between steps.
final class Peer {
    /// `lmdb-peer` sits next to the test bundle in the build directory.
    static let executable = Probe.executable.deletingLastPathComponent().appendingPathComponent("lmdb-peer").path

    private let process: Subprocess
    private let goFile: String
    private var pending: [UInt8] = []

    /// Starts `lmdb-peer command directory GO arguments…`, GO being a file
    /// in `scratch` that `go()` creates.
    init(_ command: String, directory: String, scratch: TemporaryDirectory, _ arguments: String...) throws {
        goFile = scratch.appending("go-\(UUID().uuidString)")
        // LD_LIBRARY_PATH carries over, so a peer uses the same liblmdb as
        // the tests (see Scripts/lib/build-lmdb.sh).
        var environment: [String: String] = [:]
        if let path = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"] { environment["LD_LIBRARY_PATH"] = path }
        process = try Subprocess(Self.executable, [command, directory, goFile] + arguments, environment: environment)
    }

    /// The next line the peer prints.
    ///
    /// - Throws: `DeadlineExceeded` after a minute; `PeerFailed` when it
    ///   ends first.
    func nextLine(_ what: String) throws -> String {
        let deadline = Deadline("the peer: \(what)")
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                return line
            }
            try deadline.check()
            guard let bytes = process.readOutput(waitingAtMost: 100) else {
                throw PeerFailed(what: what, error: String(decoding: process.errorOutput, as: UTF8.self))
            }
            pending += bytes
        }
    }

    /// Lets the peer go on to its next step.
    func go() {
        let created = FileManager.default.createFile(atPath: goFile, contents: nil)
        precondition(created, "cannot create '\(goFile)'")
    }

    /// Waits for the peer to end and returns how: status, or signal.
    func finish() throws -> Subprocess.Outcome {
        try process.finish(timeout: .seconds(60))
    }

    struct PeerFailed: Error, CustomStringConvertible {
        let what: String
        let error: String
        var description: String { "lmdb-peer ended before \(what): \(error)" }
    }
}
