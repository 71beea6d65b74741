import Foundation
import TestSupport

/// Debian's lmdb-utils (`mdb_dump`, `mdb_stat`), run as children: how the
/// upgrade harness reads a store's databases and bytes without ShareLog's
/// code, before and after an upgrade.
public enum LMDBUtilities {
    public static let dumpPath = "/usr/bin/mdb_dump"
    public static let statPath = "/usr/bin/mdb_stat"

    /// `mdb_dump -s database` of the store at `path`, without the two header
    /// lines that describe the environment rather than the database:
    /// `maxreaders` comes from whichever process made `lock.mdb`, and
    /// `mapsize` grows with the file.
    public static func dump(_ database: String, at path: String) throws(CrashViolation) -> String {
        try run(dumpPath, ["-s", database, path]).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("maxreaders=") && !$0.hasPrefix("mapsize=") }.joined(separator: "\n")
    }

    /// The named databases `mdb_stat -a` lists, sorted (the main database left out).
    public static func databases(at path: String) throws(CrashViolation) -> [String] {
        try run(statPath, ["-a", path]).split(separator: "\n")
            .compactMap { $0.hasPrefix("Status of ") ? String($0.dropFirst("Status of ".count)) : nil }
            .filter { $0 != "Main DB" }.sorted()
    }

    /// The `schema` entry of `meta` in hex as `mdb_dump` prints it
    /// ("00000001"), or nil when there is none.
    public static func schema(at path: String) throws(CrashViolation) -> String? {
        let lines = try dump("meta", at: path).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let body = Array(lines.drop { $0 != "HEADER=END" }.dropFirst().prefix { $0 != "DATA=END" })
        // Keys and values alternate; "schema" in hex.
        guard let key = stride(from: 0, to: body.count - 1, by: 2).first(where: { body[$0] == "736368656d61" }) else { return nil }
        return body[key + 1]
    }

    /// Runs `program arguments…` and returns its standard output.
    ///
    /// - Throws: `CrashViolation` naming the Debian package when the program
    ///   is missing, and with its standard error when it fails.
    static func run(_ program: String, _ arguments: [String]) throws(CrashViolation) -> String {
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw CrashViolation("\(program) is missing: install Debian's lmdb-utils")
        }
        let outcome: Subprocess.Outcome
        do {
            outcome = try Subprocess.run(program, arguments, environment: ProcessInfo.processInfo.environment, timeout: .seconds(120))
        } catch {
            throw CrashViolation("\(program) \(arguments.joined(separator: " ")): \(error)")
        }
        guard outcome.status == 0, !outcome.signaled else {
            throw CrashViolation("\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: outcome.error, as: UTF8.self))")
        }
        return String(decoding: outcome.output, as: UTF8.self)
    }
}
