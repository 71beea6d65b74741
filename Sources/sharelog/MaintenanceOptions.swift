import ShareLog
import SharePrimitives

/// The options of the long-running commands that maintain their store:
/// `--maintenance on|off` (on by default) and `--maintenance-every S`.
struct MaintenanceOptions {
    /// Nil when maintenance is off.
    let schedule: MaintenanceSchedule?

    static let options: [OptionSpec] = [
        .value("maintenance", "on|off", "on (the default): sweep, compact and trim the store on a schedule (docs/OPERATIONS.md); off: leave it to 'sharelog maintain'"),
        .value("maintenance-every", "60", "seconds between maintenance passes (1 to 86400)"),
    ]

    init(_ arguments: inout Arguments) throws {
        let every = try arguments.integer("maintenance-every", in: 1...86_400)
        switch try arguments.option("maintenance") {
        case nil, "on":
            var schedule = MaintenanceSchedule()
            if let every { schedule.sweepInterval = .seconds(every) }
            self.schedule = schedule
        case "off":
            if every != nil { throw CLIError.usage("--maintenance-every schedules maintenance, which --maintenance off turns off") }
            schedule = nil
        case let other?:
            throw CLIError.usage("--maintenance is on or off, not '\(other)'")
        }
    }

    /// A started scheduler for `store` that logs (`ProcessLog`) each pass
    /// that did something, each failure, and each change of hands: the
    /// first pass that found another process maintaining, and the pass
    /// that took over from it (not every skipped pass: a gateway beside a
    /// server on one store would say so once a minute). Nil when
    /// maintenance is off. Each pass is counted in `metrics`, when given.
    /// Stop it before closing the store.
    func start(_ store: ShareStore, metrics: MaintenanceMetrics?) -> MaintenanceScheduler? {
        guard let schedule else { return nil }
        let skipping = Locked(false)
        let scheduler = MaintenanceScheduler(store: store, schedule: schedule) { outcome in
            metrics?.record(outcome, now: store.clock.now())
            switch outcome {
            case .success(let report):
                let wasSkipping = skipping.withLock { wasSkipping in
                    defer { wasSkipping = !report.ran }
                    return wasSkipping
                }
                var record = report.logRecord
                if !report.ran {
                    guard !wasSkipping else { return }
                    record.message += "; this process takes over if it stops"
                } else if wasSkipping {
                    record.message = "maintenance: the other process stopped maintaining the store; this one took over. " + record.message
                    record.fields.append(("tookOver", true))
                } else if report.sweep.expired == 0, report.compaction == nil, (report.trim?.shares ?? 0) == 0 {
                    return
                }
                ProcessLog.record(record)
            case .failure(let error):
                ProcessLog.record(Self.failureRecord(error))
            }
        }
        scheduler.start()
        return scheduler
    }

    /// The log record of a pass that failed.
    static func failureRecord(_ error: ShareLogError) -> LogRecord {
        LogRecord(.error, "maintenance.failed", "maintenance failed: \(error); trying again at the next pass", [("reason", LogValue("\(error)"))])
    }
}
