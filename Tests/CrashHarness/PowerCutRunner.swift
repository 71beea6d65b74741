import Foundation
import Glibc
import LMDB
import ShareLog
import TestSupport

/// The parent of a power-cut run (docs/RELIABILITY.md "Power loss"):
///
/// 1. makes a store and syncs it (the baseline every state starts from);
/// 2. runs one writer process (`sharelog-crash writer`) with the shim
///    preloaded, which journals the file's bytes at each sync and each line
///    the writer prints; the writer performs `operations` share operations
///    (creates, reads, revokes, sweeps, compactions with their scrub) on a
///    16 KiB map it grows, with a stepped clock, in the chosen durability;
/// 3. replays the journal (`PowerCutSpace`), chooses the states, and has
///    checker processes (`sharelog-crash powercheck`) check each;
/// 4. counts the outcomes against the mode's `PowerCutPromise`.
public struct PowerCutRunner {
    public let options: PowerCutOptions
    /// `sharelog-crash`.
    public let executable: URL
    /// `libsharelog-powercut.so`.
    public let shim: URL

    /// The writer's clock at its first operation: a fixed time, so no run
    /// depends on today's date.
    public static let startTime: Int64 = 1_767_225_600_000
    /// How long the writer and each checker may run.
    static let timeout: Duration = .seconds(600)

    public init(options: PowerCutOptions, executable: URL, shim: URL) {
        self.options = options
        self.executable = executable
        self.shim = shim
    }

    /// The arguments of a checker child for the run in `directory`, from state `first`.
    static func checkerArguments(_ options: PowerCutOptions, directory: String, first: Int) -> [String] {
        ["powercheck", "--dir", directory, "--states", "\(options.states)", "--seed", "\(options.seed)",
         "--durability", PowerCutOptions.name(of: options.durability), "--first", "\(first)"]
    }

    /// The states a run with `options` checks, in the order it checks them.
    public static func states(of space: PowerCutSpace, options: PowerCutOptions) -> [PowerCutState] {
        space.states(limit: options.states, seed: options.seed)
    }

    /// Runs the whole harness.
    ///
    /// - Throws: `CrashViolation` when the writer or a checker fails in a
    ///   way that is not a state's verdict (a hang, a crash of the writer).
    public func run() throws -> PowerCutReport {
        guard FileManager.default.fileExists(atPath: shim.path) else {
            throw CrashViolation("\(shim.path) is missing: build it with 'swift build --product sharelog-powercut'")
        }
        let directory = options.directory ?? (NSTemporaryDirectory() as NSString)
            .appendingPathComponent("sharelog-power-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = directory + "/store", journalPath = directory + "/journal"
        try makeStore(at: store)
        try runWriter(store: store, journal: journalPath)
        let space = try PowerCutSpace(PowerCutJournal(contentsOf: journalPath))
        let states = Self.states(of: space, options: options)
        let promise = PowerCutPromise(options.durability)
        var report = PowerCutReport(durability: PowerCutOptions.name(of: options.durability), seed: options.seed)
        report.acknowledged = space.acknowledgements
        report.syncs = space.completedSyncs
        report.droppedSyncs = space.droppedSyncs
        report.points = space.points.count
        report.states = states.count
        var checkedAfterAnAcknowledgement = false
        var first = 0
        while first < states.count {
            let outcome = try Subprocess.run(
                executable.path, Self.checkerArguments(options, directory: directory, first: first),
                environment: ProcessInfo.processInfo.environment,
                timeout: Self.timeout)
            let lines = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n")
            for line in lines {
                guard let result = try? JSONDecoder().decode(PowerCutOutcome.self, from: Data(line.utf8)) else { continue }
                report.add(result, promise: promise)
                if result.verdict != .repeated, result.acknowledged > 0 { checkedAfterAnAcknowledgement = true }
                first = result.index + 1
            }
            if outcome.signaled {
                // The state after the last one reported killed the checker.
                let dead = PowerCutOutcome(index: first, state: states[first], acknowledged: space.acknowledged(at: states[first].point),
                                           verdict: .corrupt, detail: "the checker died of signal \(outcome.status) reading it")
                report.add(dead, promise: promise)
                first += 1
            } else if outcome.status != 0 {
                throw CrashViolation("the power-cut checker exited with status \(outcome.status): "
                    + String(decoding: outcome.error, as: UTF8.self))
            }
        }
        report.judge(checkedAfterAnAcknowledgement: checkedAfterAnAcknowledgement)
        if report.passed && !options.keep && options.directory == nil {
            try? FileManager.default.removeItem(atPath: directory)
        } else {
            report.store = directory
        }
        return report
    }

    /// Creates the store with a durable commit, closes it and syncs its
    /// file: the baseline the journal starts from is on disk.
    private func makeStore(at path: String) throws {
        do { _ = try ShareStore.open(at: path, creatingIfMissing: true, options: CrashStore.options(clock: SteppedClock(Self.startTime))) }
        let descriptor = open(path + "/data.mdb", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            throw CrashViolation("cannot sync \(path)/data.mdb: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
    }

    /// Runs the writer under the shim to its end.
    private func runWriter(store: String, journal: String) throws {
        var environment = ProcessInfo.processInfo.environment
        // After any library already preloaded (libfaketime in the year-ahead run).
        environment["LD_PRELOAD"] = [environment["LD_PRELOAD"], shim.path].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        environment["SHARELOG_POWERCUT_FILE"] = store + "/data.mdb"
        environment["SHARELOG_POWERCUT_JOURNAL"] = journal
        environment["SHARELOG_POWERCUT_LINES_FD"] = "\(STDOUT_FILENO)"
        if options.dropDataSync { environment["SHARELOG_POWERCUT_DROP"] = "data-msync" }
        let arguments = ["writer", "--store", store, "--slot", "0", "--seed", "\(options.seed)", "--first", "0",
                         "--time", "\(Self.startTime)", "--durability", PowerCutOptions.name(of: options.durability),
                         "--operations", "\(options.operations)"]
        let outcome = try Subprocess.run(executable.path, arguments, environment: environment, timeout: Self.timeout)
        guard outcome.status == 0, !outcome.signaled else {
            throw CrashViolation("the power-cut writer failed (status \(outcome.status)): \(String(decoding: outcome.error, as: UTF8.self))")
        }
    }
}
