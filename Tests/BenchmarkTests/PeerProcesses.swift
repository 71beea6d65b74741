import Foundation

/// The `sharelog-bench serve` and `follow` processes of this machine,
/// found in /proc.
enum PeerProcesses {
    /// The pids of sync peers whose `--store` is under `path`.
    static func running(under path: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.count > 3, ["serve", "follow"].contains(arguments[1]),
                  let store = arguments.firstIndex(of: "--store").map({ arguments.index(after: $0) }), store < arguments.count
            else { return false }
            return arguments[0].hasSuffix("sharelog-bench") && arguments[store].hasPrefix(path + "/")
        }.sorted()
    }
}
