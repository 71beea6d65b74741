import Glibc
import Dispatch
import ShareLog

struct MaintainCommand: Command {
    static let name = "maintain"
    static let synopsis = "maintain [--once] [--trim] [--every 60] [--trim-every 86400]"
    static let summary =
        "Sweep, then compact when a card waits for it, every --every seconds until SIGINT or SIGTERM, trimming daily; "
        + "--once runs one pass (for cron). A pass is skipped while another process maintains the store."

    struct Output: Encodable {
        let ran: Bool
        let at: String
        let expired: Int
        let redacted: Int?
        let freePagesZeroed: Int?
        let forgotten: Int?
        let forgottenKeys: Int?
    }

    static let options: [OptionSpec] = [
        .flag("once", "run one pass and exit, instead of running until a signal"),
        .flag("trim", "with --once: also forget shares that ended longer ago than the retention (reads the whole log)"),
        .value("every", "60", "seconds between passes (1 to 86400)"),
        .value("trim-every", "86400", "seconds between the passes that trim, the first pass trimming (60 to 31536000)"),
    ]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let once = arguments.flag("once")
        let trim = arguments.flag("trim")
        let every = try arguments.integer("every", in: 1...86_400)
        let trimEvery = try arguments.integer("trim-every", in: 60...31_536_000)
        try arguments.finish()
        if once, every != nil || trimEvery != nil { throw CLIError.usage("--every and --trim-every schedule passes; --once runs one") }
        if !once, trim { throw CLIError.usage("--trim is for --once; a running maintain trims every --trim-every seconds") }
        var schedule = MaintenanceSchedule()
        if let every { schedule.sweepInterval = .seconds(every) }
        if let trimEvery { schedule.trimInterval = .seconds(trimEvery) }
        let store = try context.openStore()
        defer { store.close() }
        if once { return try runOnce(store, trimming: trim, context) }

        let stopped = DispatchSemaphore(value: 0)
        StopSignals.install { number in
            logEvent("signal.stop", "signal \(number == SIGINT ? "SIGINT" : "SIGTERM"): stopping after the pass in progress")
            stopped.signal()
        }
        let scheduler = MaintenanceScheduler(store: store, schedule: schedule) { outcome in
            switch outcome {
            case .success(let report): ProcessLog.record(report.logRecord)
            case .failure(let error): ProcessLog.record(MaintenanceOptions.failureRecord(error))
            }
        }
        scheduler.start()
        stopped.wait()
        scheduler.stop()
        return ExitCode.success
    }

    private static func runOnce(_ store: ShareStore, trimming: Bool, _ context: Context) throws -> Int32 {
        let report = try store.maintain(at: context.clock.now(), trimming: trimming)
        if context.json {
            try context.printJSON(
                Output(
                    ran: report.ran, at: report.at.iso8601, expired: report.sweep.expired, redacted: report.compaction?.redacted,
                    freePagesZeroed: report.compaction.map { $0.scrub?.freePagesZeroed ?? 0 }, forgotten: report.trim?.shares, forgottenKeys: report.forgottenKeys))
        } else {
            context.print("\(report)")
        }
        return ExitCode.success
    }
}
