import Foundation
import Glibc
import Testing
import TestSupport
@testable import ShareSync
import TestTraits

/// A client refuses a Unix socket whose server runs as another user: in a
/// directory others can write, such as /tmp, another user could bind the
/// path first and hear what a main replica pushes (docs/SYNC.md "Who can
/// connect"). Here the other user is `nobody` (uid 65534 on Debian), whose
/// listener is Python's, run with `setpriv`; it counts what it receives.
@Suite(.hangDeadline, .enabled(if: geteuid() == 0, "needs root to run a listener as another user"))
struct SocketOwnerTests {
    static let nobody: UInt32 = 65534
    static let listener = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.bind(sys.argv[1])
        s.listen()
        print("ready", flush=True)
        while True:
            c, _ = s.accept()
            got = 0
            while True:
                data = c.recv(65536)
                if not data:
                    break
                got += len(data)
            print("got", got, flush=True)
        """

    /// Starts the listener as `nobody` at a path in a directory everyone may write.
    static func squatter(in directory: TemporaryDirectory) throws -> (Subprocess, String) {
        _ = chmod(directory.path, 0o777)
        let path = directory.appending("sharelog.sock")
        let process = try Subprocess(
            "/usr/bin/setpriv", ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "/usr/bin/python3", "-c", listener, path],
            environment: [:])
        var printed = ""
        try Deadline.block(until: "the listener of another user is ready") {
            if let chunk = process.readOutput(waitingAtMost: 100) { printed += String(decoding: chunk, as: UTF8.self) }
            return printed.contains("ready")
        }
        return (process, path)
    }

    @Test func theLibraryRefusesAServerOfAnotherUserBeforeSendingAnything() throws {
        let directory = TemporaryDirectory("owner")
        let (squatter, path) = try Self.squatter(in: directory)
        defer { squatter.kill() }
        #expect(throws: TransportError.socketOfAnotherUser(path: path, uid: Self.nobody)) {
            _ = try SocketChannel.connect(to: .unix(path: path), deadline: .now + .seconds(20))
        }
        var printed = ""
        try Deadline.block(until: "the listener sees the connection end") {
            if let chunk = squatter.readOutput(waitingAtMost: 100) { printed += String(decoding: chunk, as: UTF8.self) }
            return printed.contains("got")
        }
        #expect(printed.contains("got 0\n"))
    }

    @Test func syncPushesNothingToAServerOfAnotherUser() throws {
        let directory = TemporaryDirectory("owner")
        let (squatter, path) = try Self.squatter(in: directory)
        defer { squatter.kill() }
        let cli = SharelogCLI(store: directory.appending("main"), now: "2027-01-15T10:00:00Z")
        #expect(try cli.run("init").succeeded)
        #expect(try cli.run("share", "create", "-", input: Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nEND:VCARD\r\n".utf8)).succeeded)
        let pushed = try cli.run("sync", "--connect", "unix:\(path)", "--push")
        #expect(pushed.status == 1)
        #expect(pushed.error.contains("runs as uid 65534, not as this user"), "\(pushed.error)")
        var printed = ""
        try Deadline.block(until: "the listener sees the connection end") {
            if let chunk = squatter.readOutput(waitingAtMost: 100) { printed += String(decoding: chunk, as: UTF8.self) }
            return printed.contains("got")
        }
        #expect(printed.contains("got 0\n"))
    }
}
