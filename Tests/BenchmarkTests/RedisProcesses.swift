import Foundation

/// The redis-server processes of this machine, found in /proc.
enum RedisProcesses {
    /// The pids of the redis-server processes whose working directory (the
    /// benchmark starts each with `--dir` in its store) is under `path`.
    static func running(under path: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            let cwd = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? ""
            return comm == "redis-server\n" && cwd.hasPrefix(path + "/")
        }.sorted()
    }

    /// The Unix socket a running redis-server listens on, from the process
    /// title it sets ("redis-server unixsocket:PATH"); nil if it has none.
    static func socket(of pid: Int32) -> String? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
        let title = String(decoding: data.prefix { $0 != 0 }, as: UTF8.self)
        guard let range = title.range(of: "unixsocket:") else { return nil }
        return String(title[range.upperBound...].prefix { $0 != " " })
    }
}
