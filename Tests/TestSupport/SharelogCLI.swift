import Foundation

/// Runs the built `sharelog` binary on one store, as a user would, at a
/// fixed time: every run passes `--store` and `--now`, so no run reads the
/// real clock. Processes start through `Subprocess`, each run under a
/// deadline.
public struct SharelogCLI: Sendable {
    /// The `sharelog` executable SwiftPM built beside the test bundle.
    public static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("sharelog").path

    /// The child's whole environment: empty but for the clock shift that
    /// `Scripts/test` applies with `faketime`, and text log lines, which
    /// the tests read (a child's standard error is a pipe, where the
    /// default is JSON; the tests of JSON logs ask for it).
    public static let environment = ProcessInfo.processInfo.environment.filter { name, _ in
        name == "LD_PRELOAD" || name.hasPrefix("FAKETIME")
    }.merging(["SHARELOG_LOG_FORMAT": "text"]) { kept, _ in kept }

    public let store: String
    /// The `--now` of every run, unless `nowFile` is set.
    public let now: String
    /// The `--now-file` of every run, instead of `--now`: a file whose
    /// time a test changes while a process runs (`setTime`).
    public let nowFile: String?
    /// How long `run` lets a process run when the call names no timeout.
    public let timeout: Duration
    /// A program and its arguments that run `sharelog` in turn, such as
    /// `ip netns exec NS` for a network namespace; empty: none.
    public let launcher: [String]

    public init(store: String, now: String, timeout: Duration = .seconds(60), launcher: [String] = []) {
        self.store = store
        self.now = now
        nowFile = nil
        self.timeout = timeout
        self.launcher = launcher
    }

    /// A CLI whose every run reads the time from `nowFile`, which holds
    /// `now` to start with.
    public init(store: String, now: String, nowFile: String, timeout: Duration = .seconds(60)) throws {
        self.store = store
        self.now = now
        self.nowFile = nowFile
        self.timeout = timeout
        launcher = []
        try setTime(now)
    }

    /// Makes `time` (ISO 8601) the time of every run that reads `nowFile`,
    /// running ones included: a new file renamed over the old, so a reader
    /// never sees half of it.
    public func setTime(_ time: String) throws {
        guard let nowFile else { preconditionFailure("a CLI with a fixed --now has no time to set") }
        try Data((time + "\n").utf8).write(to: URL(fileURLWithPath: nowFile), options: .atomic)
    }

    /// Every run's arguments: the store and the time, then `arguments`.
    private func commandLine(_ arguments: [String]) -> [String] {
        ["--store", store] + (nowFile.map { ["--now-file", $0] } ?? ["--now", now]) + arguments
    }

    /// The program to start and its arguments: `sharelog`, through the launcher if any.
    private func invocation(_ arguments: [String]) -> (program: String, arguments: [String]) {
        guard let program = launcher.first else { return (Self.executable, commandLine(arguments)) }
        return (program, Array(launcher.dropFirst()) + [Self.executable] + commandLine(arguments))
    }

    /// Runs `sharelog arguments…` to its end; one still running at
    /// `timeout` (default: this CLI's `timeout`) is killed and the call throws.
    public func run(_ arguments: String..., input: [UInt8] = [], timeout: Duration? = nil) throws -> CLIResult {
        try run(arguments: arguments, input: input, timeout: timeout)
    }

    /// `run` with the arguments as an array.
    public func run(arguments: [String], input: [UInt8] = [], timeout: Duration? = nil) throws -> CLIResult {
        let (program, arguments) = invocation(arguments)
        return CLIResult(try Subprocess.run(program, arguments, environment: Self.environment, input: input, timeout: timeout ?? self.timeout))
    }

    /// Starts `sharelog arguments…` and returns at once, for processes a
    /// test runs side by side or in the background.
    public func start(_ arguments: [String]) throws -> Subprocess {
        let (program, arguments) = invocation(arguments)
        return try Subprocess(program, arguments, environment: Self.environment)
    }

    /// Runs each command line, at most `lanes` processes at a time, and
    /// returns their results in order. Each may take its CLI's `timeout`.
    public static func runAll(_ commands: [(cli: SharelogCLI, arguments: [String])], lanes: Int = 4) throws -> [CLIResult] {
        var results: [CLIResult] = []
        var start = 0
        while start < commands.count {
            let chunk = commands[start..<min(start + lanes, commands.count)]
            let running = try chunk.map { (process: try $0.cli.start($0.arguments), timeout: $0.cli.timeout) }
            for entry in running { results.append(CLIResult(try entry.process.finish(timeout: entry.timeout))) }
            start += chunk.count
        }
        return results
    }

    /// `stats --json`'s event count.
    public func eventCount() throws -> Int { try statistic("events", as: Int.self) }

    /// `stats --json`'s replica id.
    public func replicaID() throws -> String { try statistic("replicaID", as: String.self) }

    /// `stats --json`'s last log position.
    public func lastPosition() throws -> UInt64 { UInt64(try statistic("lastPosition", as: Int.self)) }

    /// The field `name` of `stats --json`; throws when `stats` fails or
    /// prints no such field of that type.
    private func statistic<Value>(_ name: String, as _: Value.Type) throws -> Value {
        let stats = try run("stats", "--json").checked("sharelog stats --json")
        guard let value = stats.json[name] as? Value else {
            throw HarnessFailure.unexpected("sharelog stats --json printed no \(name) of type \(Value.self): \(stats.text)")
        }
        return value
    }

    /// The event ids of the log in log order, as `origin:counter`.
    public func logIDs() throws -> [String] {
        try run("log", "--json").checked("sharelog log --json").jsonLines
            .map { "\($0["origin"] as? String ?? "?"):\($0["originCounter"] as? Int ?? -1)" }
    }

    /// `verify`'s exit status: 0 when the projections match the log.
    public func verify() throws -> Int32 { try run("verify").status }
}
