import Foundation
import ShareClip
import ShareLog
import ShareSync

/// What every command shares: where the store is, what time it is, how to
/// print.
struct Context {
    /// `--store`, then `SHARELOG_STORE`, then `./sharelog-data`.
    let storePath: String
    /// `--now` (ISO 8601), `--now-file` (a test hook), or the system clock.
    let clock: any WallClock
    /// `--domain`, then `SHARELOG_DOMAIN`, then `cards.example.com`.
    let domain: AppClipDomain
    /// `--json`: one JSON document (or one per line for streams).
    let json: Bool
    /// `--log-format`, then `SHARELOG_LOG_FORMAT`, then text on a terminal
    /// and JSON elsewhere (`ProcessLog`).
    let logFormat: LogFormat

    /// Reads the options every command accepts.
    init(_ arguments: inout Arguments, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        storePath = try arguments.option("store") ?? environment["SHARELOG_STORE"] ?? "./sharelog-data"
        let now = try arguments.option("now")
        let nowFile = try arguments.option("now-file")
        switch (now, nowFile) {
        case (let now?, nil):
            guard let time = Timestamp(iso8601: now) else {
                throw CLIError.invalidInput("--now '\(now)' is not an ISO 8601 time such as 2026-12-07T09:30:00Z")
            }
            clock = FixedClock(time)
        case (nil, let path?):
            clock = try FileClock(path: path)
        case (nil, nil):
            clock = SystemClock()
        case (.some, .some):
            throw CLIError.usage("give --now or --now-file, not both")
        }
        let domainName = try arguments.option("domain") ?? environment["SHARELOG_DOMAIN"] ?? AppClipDomain.standard.name
        do { domain = try AppClipDomain(domainName) } catch { throw CLIError.invalidInput("--domain: \(error)") }
        json = arguments.flag("json")
        logFormat = try ProcessLog.format(option: try arguments.option("log-format"), environment: environment)
    }

    var storeOptions: ShareStore.Options {
        var options = ShareStore.Options()
        options.clock = clock
        options.linkDomain = domain
        return options
    }

    /// Opens the store for a command that writes (creating it only with
    /// `creatingIfMissing`); says on standard error when opening it
    /// upgraded its format, since that rewrote every derived database.
    /// A command that follows commits gives its heartbeat as
    /// `commitWatchFallback`: how often it reads the log's end when no
    /// commit signal came.
    func openStore(creatingIfMissing: Bool = false, commitWatchFallback: Duration? = nil) throws -> ShareStore {
        var options = storeOptions
        if let commitWatchFallback { options.commitWatchFallback = commitWatchFallback }
        let store = try ShareStore.open(at: storePath, creatingIfMissing: creatingIfMissing, options: options)
        if let upgrade = store.upgrade {
            logEvent(
                "store.upgraded",
                "upgraded the store from format \(upgrade.fromVersion) to \(upgrade.toVersion) (\(upgrade.eventsReplayed) log entries replayed)", .info,
                [("from", LogValue(upgrade.fromVersion)), ("to", LogValue(upgrade.toVersion)), ("eventsReplayed", LogValue(upgrade.eventsReplayed))])
        }
        return store
    }

    /// Opens the existing store read-only, for `command`, one of the
    /// commands that only read (docs/CLI.md "Commands that only read"):
    /// nothing is written to the store, so a format-1 store is not upgraded
    /// but refused, with the command to run first.
    ///
    /// - Throws: `CLIError.failure` (exit 1) for a format-1 store; what
    ///   `ShareStore.open` throws otherwise (`storeNotFound`, exit 3).
    func openStoreToRead(for command: String) throws -> ShareStore {
        var options = storeOptions
        options.environment.readOnly = true
        do {
            return try ShareStore.open(at: storePath, options: options)
        } catch ShareLogError.upgradeRequired(let found) {
            throw CLIError.failure(
                "the store has format \(found), and '\(command)' reads only format \(ShareStore.formatVersion) and never upgrades a store "
                    + "(nothing was changed); run 'sharelog upgrade' once, then 'sharelog \(command)' again")
        }
    }

    /// Whether a store is there (its `data.mdb`): read before a command
    /// that makes a missing store (`sync`, `clip open`) opens it.
    var storeExists: Bool { FileManager.default.fileExists(atPath: (storePath as NSString).appendingPathComponent("data.mdb")) }

    /// The store for a command that syncs into it and makes a missing one
    /// (`sync`, `clip open --connect`): a store that is there is opened
    /// now (`openStore`); a missing one is made only once a server has
    /// accepted a session (`SyncClientStore`), so a typo in the endpoint,
    /// of any form, or a server that refuses, leaves no store behind.
    func syncStore(commitWatchFallback: Duration? = nil) throws -> SyncClientStore {
        if storeExists { return SyncClientStore(try openStore(creatingIfMissing: true, commitWatchFallback: commitWatchFallback)) }
        var options = storeOptions
        if let commitWatchFallback { options.commitWatchFallback = commitWatchFallback }
        return SyncClientStore(makingAt: storePath, options: options)
    }

    /// Writes one line to standard output.
    func print(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

    /// Writes `value` as one line of JSON with sorted keys.
    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Reports progress on standard error when it is a terminal.
    func progress(_ line: String) {
        guard isatty(STDERR_FILENO) != 0 else { return }
        FileHandle.standardError.write(Data("\r\(line)\u{1B}[K".utf8))
    }

    /// Ends a progress line.
    func progressDone() {
        guard isatty(STDERR_FILENO) != 0 else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}

/// "1 share", "2 shares": a count with its noun, for text output.
func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
