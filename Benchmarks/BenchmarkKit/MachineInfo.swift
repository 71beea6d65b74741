import CBaseline
import Foundation

/// The machine and software a run measured on.
public struct MachineInfo: Codable, Sendable {
    public let cores: Int
    public let cpu: String
    public let memoryBytes: UInt64
    public let kernel: String
    public let os: String
    public let swift: String
    public let lmdb: String
    public let sqlite: String
    /// redis-server's and hiredis's versions; nil when redis-server is not
    /// installed.
    public let redis: String?
    /// nats-server's version (the relay workload's cluster); nil when it
    /// is not installed, or in the results of runs from before the relay.
    public let nats: String?
    /// The 1-minute load average when the run began: other users of the machine.
    public let loadAverageAtStart: Double
    /// Which cores the HTTP workload's servers and clients run on
    /// (`CPUPinning`); nil in the results of runs from before it.
    public var httpPinning: String? = nil
    /// nginx's, wrk's, libmicrohttpd's and GnuTLS's versions (the HTTP
    /// workload); nil in the results of runs from before it.
    public var httpSoftware: String? = nil

    /// Describes this machine; `swift` is the toolchain's version line,
    /// which only the caller (Scripts/bench) can ask the toolchain for.
    public static func current(swift: String) -> MachineInfo {
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return MachineInfo(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            cpu: field("model name", in: "/proc/cpuinfo", separator: ":") ?? "unknown",
            memoryBytes: ProcessInfo.processInfo.physicalMemory,
            kernel: kernel,
            os: field("PRETTY_NAME", in: "/etc/os-release", separator: "=")?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) ?? "unknown",
            swift: swift,
            lmdb: String(cString: cb_lmdb_version()),
            sqlite: String(cString: cb_sqlite_version()),
            redis: RedisServer.versions(),
            nats: RelayBench.natsServerVersion(),
            loadAverageAtStart: loadAverage(),
            httpPinning: CPUPinning.detect().description,
            httpSoftware: httpVersions())
    }

    /// "nginx/1.22.1, wrk debian/4.1.0-3, libmicrohttpd12 0.9.75-6, libgnutls30 3.7.9-2" from the
    /// tools and dpkg; nil when none says.
    private static func httpVersions() -> String? {
        var parts: [String] = []
        if let nginx = try? ProcessRunner.run(NginxServer.executable, ["-v"]),
           let version = nginx.error.split(separator: "\n").first?.split(separator: ":").last {
            parts.append(version.trimmingCharacters(in: .whitespaces))
        }
        if let wrk = try? ProcessRunner.run(WrkRun.executable, ["-v"]),
           let line = (wrk.outputText + wrk.error).split(separator: "\n").first, line.hasPrefix("wrk ") {
            parts.append(String(line.split(separator: " ").prefix(2).joined(separator: " ")))
        }
        if let packages = try? ProcessRunner.run("/usr/bin/dpkg-query", ["-W", "-f", "${Package} ${Version}\\n", "libmicrohttpd*", "libgnutls30*"]) {
            parts += packages.outputText.split(separator: "\n").filter { $0.split(separator: " ").count == 2 }.map(String.init)
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// The value of the first line of `path` that starts with `key`.
    private static func field(_ key: String, in path: String, separator: Character) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            guard let split = line.firstIndex(of: separator) else { continue }
            return line[line.index(after: split)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : -1
    }
}
