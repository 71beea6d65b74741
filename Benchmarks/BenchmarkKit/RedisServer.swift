import CBaseline
import Foundation

/// Where Debian's `redis-server` is, and which Redis and hiredis a run used.
enum RedisServer {
    /// The first `redis-server` on `PATH`.
    ///
    /// - Throws: `BenchError.process` when there is none.
    static func executable() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/redis-server"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw BenchError.process("redis-server is not on PATH; install Debian's redis-server (Scripts/bench installs it)")
    }

    /// "redis-server 7.0.15, hiredis 0.14.1", from `redis-server --version`;
    /// nil when the server is not installed or says no version.
    static func versions() -> String? {
        guard let server = try? executable() else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = ["--version"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=..."
        guard let version = printed.split(separator: " ").first(where: { $0.hasPrefix("v=") })?.dropFirst(2) else { return nil }
        return "redis-server \(version), hiredis \(String(cString: cb_hiredis_version()))"
    }
}
