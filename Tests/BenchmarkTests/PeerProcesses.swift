import Foundation

/// The `sharelog-bench serve`, `follow` and `relay` processes of this
/// machine, and the nats-servers of the relay workload's cluster, found in
/// /proc.
enum PeerProcesses {
    /// The pids of sync peers whose `--store` is under `path`.
    static func running(under path: String) -> [Int32] {
        commandLines().filter { _, arguments in
            guard arguments.count > 3, ["serve", "follow", "relay"].contains(arguments[1]),
                  let store = arguments.firstIndex(of: "--store").map({ arguments.index(after: $0) }), store < arguments.count
            else { return false }
            return arguments[0].hasSuffix("sharelog-bench") && arguments[store].hasPrefix(path + "/")
        }.map(\.pid).sorted()
    }

    /// The pids of nats-servers whose config (`-c`) is under `path`.
    static func natsServers(under path: String) -> [Int32] {
        commandLines().filter { _, arguments in
            guard arguments.first?.hasSuffix("nats-server") == true,
                  let config = arguments.firstIndex(of: "-c").map({ arguments.index(after: $0) }), config < arguments.count
            else { return false }
            return arguments[config].hasPrefix(path + "/")
        }.map(\.pid).sorted()
    }

    /// Every process's pid and arguments.
    private static func commandLines() -> [(pid: Int32, arguments: [String])] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            return (pid, data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
        }
    }
}
