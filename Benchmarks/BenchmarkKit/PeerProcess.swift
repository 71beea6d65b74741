import Foundation
import TestSupport

/// A `sharelog-bench serve`, `follow` or `relay` process (`SyncPeer`) that
/// a sync workload runs beside itself: started, read line by line with
/// deadlines, measured (RssAnon), and killed. Used from one thread at a time.
final class PeerProcess {
    private let process: Subprocess
    /// What the peer is, for messages.
    let what: String
    private var pending: [UInt8] = []

    var pid: pid_t { process.pid }

    /// How long a peer may take to print its first line.
    static let startDeadline = Duration.seconds(60)

    /// Starts `bench` with `arguments` and waits for its `ready` line.
    ///
    /// - Throws: `BenchError.process` with what the peer printed on
    ///   standard error, when it exits or says anything else first.
    init(bench: String, _ arguments: [String], what: String) throws {
        self.what = what
        do {
            process = try Subprocess(bench, arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw BenchError.process("starting \(what): \(error)")
        }
        let first = try nextLine(within: Self.startDeadline)
        guard first == SyncPeer.readyLine else { throw BenchError.process("\(what) said '\(first)' instead of '\(SyncPeer.readyLine)'") }
    }

    deinit { stop() }

    /// The next line the peer prints, without its newline.
    ///
    /// - Throws: `BenchError.process` when the peer ends first or `timeout`
    ///   passes.
    func nextLine(within timeout: Duration) throws -> String {
        let deadline = Deadline("a line from \(what)", timeout: timeout)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            guard !deadline.hasPassed else { throw BenchError.process("\(what) printed no line within \(timeout)\(stderrTail)") }
            guard let read = process.readOutput(waitingAtMost: 100) else {
                throw BenchError.process("\(what) ended\(stderrTail)")
            }
            pending += read
        }
    }

    /// The peer's RssAnon in KiB, from /proc; nil once it has gone.
    var rssAnonKiB: Int? { ProcStatus.rssAnonKiB(of: pid) }

    /// Kills the peer (its stores are thrown away after use, so nothing is
    /// owed a clean stop) and reaps it.
    func stop() {
        process.kill()
        _ = try? process.finish(timeout: .seconds(30))
    }

    private var stderrTail: String {
        let text = String(decoding: process.errorOutput.suffix(600), as: UTF8.self)
        return text.isEmpty ? "" : "; its standard error ends: \(text)"
    }
}

/// Reads `/proc/PID/status` and `/proc/PID/stat`.
enum ProcStatus {
    /// RssAnon of process `pid` in KiB; nil when it is gone or says none.
    static func rssAnonKiB(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("RssAnon:") {
            return Int(line.dropFirst("RssAnon:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    /// The CPU time process `pid` has used, user and system, in seconds
    /// (in clock ticks, 10 ms each); nil once it is gone.
    static func cpuSeconds(of pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // After the command's closing parenthesis: state (field 3) on;
        // utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// How long each live thread of process `pid` has run on a CPU, in
    /// nanoseconds, by thread id (`/proc/PID/task/TID/schedstat`), but the
    /// threads named (`comm`) in `excluded`; nil once it is gone. For short
    /// idle windows, where `cpuSeconds`'s 10 ms ticks are too coarse: see
    /// `runSeconds(from:to:)`.
    static func threadRunTimes(of pid: pid_t, excluding excluded: Set<String> = []) -> [String: UInt64]? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var times: [String: UInt64] = [:]
        for thread in threads {
            if !excluded.isEmpty, let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/comm", encoding: .utf8),
               excluded.contains(name.trimmingCharacters(in: .newlines)) {
                continue
            }
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/schedstat", encoding: .utf8),
                  let first = stat.split(separator: " ").first, let value = UInt64(first) else { continue }
            times[thread] = value
        }
        return times
    }

    /// The CPU time a process used between two `threadRunTimes` samples,
    /// in seconds: each thread's growth, and all of a thread born between
    /// them. A thread that ended between them is not counted (an idle
    /// process's threads that end are Dispatch's idle workers, reaped).
    static func runSeconds(from start: [String: UInt64], to end: [String: UInt64]) -> Double {
        let nanoseconds = end.reduce(UInt64(0)) { sum, entry in sum + entry.value - min(start[entry.key] ?? 0, entry.value) }
        return Double(nanoseconds) * 1e-9
    }

    /// The CPU time this process has used, user and system, in seconds.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
    }
}
