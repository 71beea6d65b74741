import Foundation
import ShareLog
import ShareSync
import SharePrimitives

struct SyncCommand: Command {
    static let name = "sync"
    static let synopsis =
        "sync --connect unix:PATH|tcp:HOST:PORT|exec:COMMAND | --stdio [--pull|--push|--both] [--follow] [--role main|clip] [--only ID ...] [--key-file F (main only)] [--heartbeat 5] [--peer-timeout 20]"
    static let summary = "Sync with a server: pull, push or both (main), or fetch shares by id (clip); print what moved."

    struct Output: Encodable {
        let peer: String?
        let role: String
        let directions: [String]
        let eventsReceived: Int
        let eventsApplied: Int
        let eventsSent: Int
        let bytesIn: Int
        let bytesOut: Int
        let snapshots: Int
        let found: [String]
        let unknown: [String]
        let milliseconds: Int64
        let renewedReplica: String?
    }

    static let options: [OptionSpec] = SyncOptions.options(endpoint: "connect") + [
        .flag("pull", "receive the server's events (the default)"),
        .flag("push", "send this store's events"),
        .flag("both", "pull and push in one session"),
        .flag("follow", "stay connected and keep syncing as either side commits; reconnect after a failure"),
        .value("role", "main|clip", "main (the default) syncs everything; clip fetches the shares named by --only"),
        .values("only", "ID", "the record names a clip fetches"),
    ]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let role = try Self.role(arguments.option("role"))
        let sync = try SyncOptions(&arguments, endpointOption: "connect", role: role)
        let names = try arguments.values("only").map { text in
            guard let name = RecordName(text) else { throw ShareLogError.invalidRecordName(text) }
            return name
        }
        let ways = [("pull", SyncDirections.pull), ("push", .push), ("both", .both)].filter { arguments.flag($0.0) }
        let follow = arguments.flag("follow")
        try arguments.finish()
        guard ways.count <= 1 else { throw CLIError.usage("give one of --pull, --push and --both") }
        switch role {
        case .clip:
            guard ways.isEmpty, !follow else { throw CLIError.usage("a clip only fetches: --role clip takes --only, not --pull, --push, --both or --follow") }
            guard !names.isEmpty else { throw CLIError.usage("--role clip needs --only ID (the shares to fetch)") }
        case .main:
            guard names.isEmpty else { throw CLIError.usage("--only is for --role clip; a main replica syncs everything") }
        }
        var request = SyncRequest(endpoint: sync.endpoint)
        request.role = role
        request.directions = role == .clip ? [] : (ways.first?.1 ?? .pull).union(follow ? .follow : [])
        request.names = names
        request.key = sync.key
        request.options = sync.session
        // A missing store is made only once a server has accepted the
        // session: a typo in the endpoint is not a reason to leave one.
        let store = try context.syncStore(commitWatchFallback: sync.session.heartbeatInterval)
        defer { store.store?.close() }
        let sessions = SessionContext()
        StopSignals.install(sessions)
        let started = ContinuousClock.now
        let progress: (SyncSummary) -> Void = { context.progress("received \($0.eventsReceived) events, sent \($0.eventsSent)") }
        if follow {
            SyncClient.follow(request, store: store, context: sessions, onSession: { result in
                switch result {
                case .success(let summary):
                    logEvent(
                        "follow.session.ended",
                        "session ended: received \(counted(summary.eventsReceived, "event")) (\(summary.eventsApplied) new), sent \(counted(summary.eventsSent, "event"))",
                        .info,
                        [("outcome", "ok"), ("eventsReceived", LogValue(summary.eventsReceived)), ("eventsApplied", LogValue(summary.eventsApplied)),
                         ("eventsSent", LogValue(summary.eventsSent))])
                case .failure(let failure):
                    logEvent("follow.session.ended", "session ended: \(failure); reconnecting", .warning, [("outcome", "failed"), ("reason", LogValue("\(failure)"))])
                }
            }, progress: progress)
            context.progressDone()
            return ExitCode.success
        }
        let summary: SyncSummary
        do {
            summary = try SyncClient.run(request, store: store, context: sessions, progress: progress)
        } catch {
            context.progressDone()
            throw CLIError.failure("sync failed: \(error)")
        }
        context.progressDone()
        let elapsed = ContinuousClock.now - started
        let output = Output(
            peer: summary.peer.map { "\($0)" }, role: "\(role)",
            directions: [("pull", SyncDirections.pull), ("push", .push)].filter { request.directions.contains($0.1) }.map(\.0),
            eventsReceived: summary.eventsReceived, eventsApplied: summary.eventsApplied, eventsSent: summary.eventsSent,
            bytesIn: summary.bytesIn, bytesOut: summary.bytesOut, snapshots: summary.snapshots,
            found: summary.found.map { "\($0)" }, unknown: summary.unknown.map { "\($0)" },
            milliseconds: elapsed.wholeMilliseconds,
            renewedReplica: store.store?.identityRenewal.map { "\($0.replica)" })
        if context.json { try context.printJSON(output); return ExitCode.success }
        let peer = output.peer ?? "the server"
        if role == .clip {
            context.print("fetched \(counted(output.found.count, "share")) from \(peer)\(output.unknown.isEmpty ? "" : "; unknown there: \(output.unknown.joined(separator: ", "))")")
        } else {
            context.print("received \(counted(output.eventsReceived, "event")) (\(output.eventsApplied) new) from \(peer), sent \(counted(output.eventsSent, "event"))"
                + (output.snapshots > 0 ? ", after a snapshot" : ""))
        }
        context.print("\(output.bytesIn) bytes in, \(output.bytesOut) bytes out, \(output.milliseconds) ms")
        return ExitCode.success
    }

    private static func role(_ text: String?) throws -> SyncRole {
        switch text {
        case nil, "main": .main
        case "clip": .clip
        case let other?: throw CLIError.usage("--role must be main or clip, not '\(other)'")
        }
    }
}
