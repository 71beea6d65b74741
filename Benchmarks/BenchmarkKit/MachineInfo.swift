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
            loadAverageAtStart: loadAverage())
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
