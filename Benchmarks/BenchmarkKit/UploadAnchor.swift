import Foundation

/// `sharelog-bench anchor`: one anchor of the upload workload in a process
/// of its own, so that it runs on the gateway's cores as the gateway does
/// (`taskset`), without moving the benchmark's other threads: `count`
/// shares of the 9:1 pool by `creators` creators (tasks for ShareLog,
/// threads for SQLite) into a new durable store. It prints one line,
/// `anchor seconds=S cpu=C commits=N` (commits -1 when not counted), and
/// exits 0.
public enum UploadAnchor {
    /// What one anchor run measured.
    struct Result {
        let seconds: Double
        /// The process's CPU time while creating, user and system.
        let cpuSeconds: Double
        /// Durable commits, from LMDB's transaction ids; nil for SQLite.
        let commits: Int?
    }

    static let linePrefix = "anchor "

    /// The child's side.
    ///
    /// - Returns: the exit code and, on failure, the reason.
    public static func create(system name: String, store path: String, count: Int, creators: Int, pool: Int) async -> (code: Int32, error: String?) {
        guard let system = BenchSystem(rawValue: name), system == .shareLog || system == .sqlite else {
            return (2, "--system is ShareLog or SQLite, not '\(name)'")
        }
        guard count > 0, creators > 0, pool > 0, pool % 10 == 0 else { return (2, "--count and --creators are positive, --pool a multiple of 10") }
        do {
            let store = try openStore(system, at: path, durable: true)
            defer { store.close() }
            let deck = CardDeck(mixed: true, pool: pool)
            let commitsBefore = store.commitCount()
            let cpuBefore = ProcStatus.ownCPUSeconds()
            let created = try await store.create(
                deck, first: 0, count: count, batch: 1, creators: creators, createdAt: BenchTime.start, ttl: 7 * BenchTime.day)
            let cpu = ProcStatus.ownCPUSeconds() - cpuBefore
            guard created.value.count == 16 * count else { return (1, "created \(created.value.count / 16) of \(count) shares") }
            let commits = store.commitCount().flatMap { after in commitsBefore.map { after - $0 } } ?? -1
            SyncPeer.printLine(linePrefix + "seconds=\(created.seconds) cpu=\(cpu) commits=\(commits)")
            return (0, nil)
        } catch {
            return (1, "\(error)")
        }
    }

    /// Runs the anchor of `system` as a child on `cores` (all of them when
    /// empty) into a new store at `path`, which it removes after.
    static func measure(
        _ system: BenchSystem, at path: String, count: Int, creators: Int, context: BenchContext, pinning: CPUPinning, cores: [Int]
    ) throws -> Result {
        context.remove(path)
        defer { context.remove(path) }
        let arguments = [
            context.executables.bench, "anchor", "--system", system.rawValue, "--store", path, "--count", String(count),
            "--creators", String(creators), "--pool", String(context.configuration.cardPool),
        ]
        let command = pinning.command(arguments, on: cores)
        let outcome = try ProcessRunner.run(command[0], Array(command.dropFirst()), timeout: .seconds(600))
        guard outcome.status == 0, let line = outcome.outputText.split(separator: "\n").last(where: { $0.hasPrefix(linePrefix) }) else {
            throw BenchError.process("the \(system.rawValue) anchor exited \(outcome.status): \(outcome.error.suffix(400))")
        }
        var values: [String: Double] = [:]
        for pair in line.dropFirst(linePrefix.count).split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        guard let seconds = values["seconds"], seconds > 0, let cpu = values["cpu"], let commits = values["commits"] else {
            throw BenchError.process("the \(system.rawValue) anchor printed '\(line)'")
        }
        return Result(seconds: seconds, cpuSeconds: cpu, commits: commits < 0 ? nil : Int(commits))
    }
}
