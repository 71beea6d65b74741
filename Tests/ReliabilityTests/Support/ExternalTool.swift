import Foundation

/// An installed program a test runs: Debian's lmdb-utils, or the Python
/// interpreter with python3-lmdb.
enum ExternalTool {
    static let python = "/usr/bin/python3"
    static let mdbStat = "/usr/bin/mdb_stat"
    static let mdbDump = "/usr/bin/mdb_dump"
    static let mdbCopy = "/usr/bin/mdb_copy"

    /// Runs `path arguments…` to completion, whatever its exit status.
    ///
    /// - Throws: `MissingTool` naming the Debian `package` to install when
    ///   `path` is not there.
    static func run(_ path: String, _ arguments: [String], package: String) throws -> ExternalCommand {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw MissingTool(path: path, package: package) }
        return try ExternalCommand.run(path, arguments)
    }

    /// Runs `path arguments…` and requires it to succeed.
    ///
    /// - Throws: `MissingTool`, or `ToolFailed` with the program's standard
    ///   error when it exits non-zero.
    @discardableResult
    static func succeed(_ path: String, _ arguments: [String], package: String) throws -> ExternalCommand {
        let result = try run(path, arguments, package: package)
        guard result.status == 0 else { throw ToolFailed(command: ([path] + arguments).joined(separator: " "), result: result) }
        return result
    }
}
