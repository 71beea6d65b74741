import Foundation
import Glibc

/// The demo's folder: every store, socket, log and file it makes, under one
/// path it prints.
///
/// A run starts clean: a folder that a demo made before (it holds the
/// marker file `.sharelog-demo`) is removed first, after any process that
/// run left behind (killed with SIGKILL, its stop never ran) is killed
/// too; the marker lists their pids. Any other folder that is not empty is
/// refused, untouched, so the demo can never delete someone's data.
struct DemoFolder {
    static let markerName = ".sharelog-demo"
    /// The main server's socket, in the folder.
    static let socketName = "main.sock"

    let path: String

    /// Makes `path` a fresh demo folder.
    ///
    /// - Throws: `CLIError.invalidInput` for a non-empty folder that is no
    ///   demo folder, or a path that is a file; `CLIError.failure` when it
    ///   cannot be removed or made.
    init(_ path: String) throws {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        self.path = absolute
        // Checked before anything is touched: the server's socket must fit
        // a Unix socket address (107 bytes and a NUL).
        let socket = (absolute as NSString).appendingPathComponent(Self.socketName)
        guard socket.utf8.count <= 107 else {
            throw CLIError.invalidInput(
                "--dir \(absolute) is too long: the server's socket \(socket) would be \(socket.utf8.count) bytes, "
                    + "and a Unix socket path may have 107; give a shorter folder")
        }
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: absolute, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIError.invalidInput("--dir \(absolute) is a file; give a folder for the demo")
            }
            let entries = (try? files.contentsOfDirectory(atPath: absolute)) ?? []
            if entries.contains(Self.markerName) {
                Self.killLeftovers(listedIn: (absolute as NSString).appendingPathComponent(Self.markerName), folder: absolute)
                do { try files.removeItem(atPath: absolute) } catch {
                    throw CLIError.failure("cannot remove the previous demo in \(absolute): \(error.localizedDescription)")
                }
            } else if !entries.isEmpty {
                throw CLIError.invalidInput(
                    "--dir \(absolute) holds files that no demo made; give an empty or new folder (the demo removes its own folder when run again)")
            }
        }
        do {
            try files.createDirectory(atPath: logs, withIntermediateDirectories: true)
        } catch {
            throw CLIError.failure("cannot make the demo folder \(absolute): \(error.localizedDescription)")
        }
        guard files.createFile(atPath: marker, contents: Data()) else {
            throw CLIError.failure("cannot write \(marker)")
        }
    }

    /// A path inside the folder.
    func appending(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Where the children's output and errors go.
    var logs: String { appending("logs") }

    private var marker: String { appending(Self.markerName) }

    /// Notes a child's pid in the marker, so that a later run can stop it
    /// if this run dies without stopping it.
    func record(_ pid: pid_t) {
        guard let handle = FileHandle(forWritingAtPath: marker) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data("\(pid)\n".utf8))
    }

    /// SIGKILLs each pid the marker lists that is still a process whose
    /// command line names `folder` (so a pid the system has since given to
    /// another program is left alone), and reaps nothing: they are no
    /// children of this process.
    private static func killLeftovers(listedIn marker: String, folder: String) {
        let listed = (FileManager.default.contents(atPath: marker).map { String(decoding: $0, as: UTF8.self) } ?? "")
            .split(separator: "\n").compactMap { pid_t($0) }
        for pid in listed {
            guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                String(decoding: commandLine, as: UTF8.self).contains(folder)
            else { continue }
            kill(pid, SIGKILL)
        }
    }
}
