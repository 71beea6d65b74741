import Foundation

/// Which cores the HTTP workload's servers run on, and which its clients
/// (`wrk`, the Redis harness's client threads): disjoint sets when the
/// machine allows, so a server's figures are not those of a server fighting
/// its client for a core. With the cores this process may use split in two
/// (the first half for the server), through `taskset` (util-linux) and
/// `sched_setaffinity`. On a one-core machine, or without `taskset`, nothing
/// is pinned and the report says so.
struct CPUPinning: Codable, Sendable {
    /// Cores of the servers (gateway, nginx, redis-server); empty: unpinned.
    let server: [Int]
    /// Cores of the clients; empty: unpinned.
    let client: [Int]

    var pinned: Bool { !server.isEmpty && !client.isEmpty }

    /// Threads (gateway) and worker processes (nginx) each server runs:
    /// one per core it has, as nginx's own guidance has it.
    var serverThreads: Int { pinned ? server.count : ProcessInfo.processInfo.activeProcessorCount }
    /// `wrk` threads: one per client core.
    var clientThreads: Int { pinned ? client.count : ProcessInfo.processInfo.activeProcessorCount }

    static let taskset = "/usr/bin/taskset"

    /// Splits the cores this process may run on, if there are two or more
    /// and `taskset` works.
    static func detect() -> CPUPinning {
        let cores = allowedCores()
        guard cores.count >= 2, FileManager.default.isExecutableFile(atPath: taskset),
              (try? ProcessRunner.run(taskset, ["-c", String(cores[0]), "/bin/true"]).status) == 0
        else { return CPUPinning(server: [], client: []) }
        let half = cores.count / 2
        return CPUPinning(server: Array(cores[..<half]), client: Array(cores[half...]))
    }

    /// What the report says about the pinning.
    var description: String {
        pinned ? "servers on core(s) \(Self.list(server)), clients on core(s) \(Self.list(client)) (taskset)"
            : "not pinned: servers and clients share every core"
    }

    /// `command` prefixed so that it runs on `cores` (unchanged when unpinned).
    func command(_ command: [String], on cores: [Int]) -> [String] {
        cores.isEmpty ? command : [Self.taskset, "-c", Self.list(cores)] + command
    }

    /// Moves every thread of process `pid` to `cores` (`taskset -a -p`).
    func move(_ pid: pid_t, to cores: [Int]) throws {
        guard !cores.isEmpty else { return }
        let outcome = try ProcessRunner.run(Self.taskset, ["-a", "-p", "-c", Self.list(cores), String(pid)])
        guard outcome.status == 0 else { throw BenchError.process("taskset -a -p \(pid): \(outcome.error)") }
    }

    /// Runs `body` with the calling thread on the client cores: threads it
    /// starts (the Redis harness's clients) inherit them. Restores the
    /// thread's cores after.
    func onClientCores<R>(_ body: () throws -> R) rethrows -> R {
        guard pinned else { return try body() }
        var before = [UInt8](repeating: 0, count: Self.maskBytes)
        let saved = systemGetAffinity(0, before.count, &before) == 0
        var mask = Self.mask(client)
        _ = systemSetAffinity(0, mask.count, &mask)
        defer { if saved { _ = systemSetAffinity(0, before.count, &before) } }
        return try body()
    }

    private static func list(_ cores: [Int]) -> String { cores.map(String.init).joined(separator: ",") }

    /// The size of the kernel's CPU masks here: glibc's `cpu_set_t`, 1,024 cores.
    private static let maskBytes = 128

    /// The cores of this process's affinity mask, ascending.
    static func allowedCores() -> [Int] {
        var set = [UInt8](repeating: 0, count: maskBytes)
        guard systemGetAffinity(0, set.count, &set) == 0 else { return [] }
        return (0..<(set.count * 8)).filter { set[$0 / 8] & (1 << UInt8($0 % 8)) != 0 }
    }

    private static func mask(_ cores: [Int]) -> [UInt8] {
        var set = [UInt8](repeating: 0, count: maskBytes)
        for core in cores where core / 8 < set.count { set[core / 8] |= 1 << UInt8(core % 8) }
        return set
    }
}

/// glibc's `sched_getaffinity(2)` and `sched_setaffinity(2)`, which the
/// Glibc module does not export (they need `_GNU_SOURCE`):
/// `int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask)`.
@_silgen_name("sched_getaffinity")
private func systemGetAffinity(_ pid: pid_t, _ size: Int, _ mask: UnsafeMutableRawPointer) -> Int32

@_silgen_name("sched_setaffinity")
private func systemSetAffinity(_ pid: pid_t, _ size: Int, _ mask: UnsafeRawPointer) -> Int32
