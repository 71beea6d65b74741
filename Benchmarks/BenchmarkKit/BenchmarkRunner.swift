import Foundation

/// Runs the workloads in order and assembles the report.
public struct BenchmarkRunner: Sendable {
    /// Every workload, in the order a run does them.
    public static let workloads: [any Workload] = [
        CreateWorkload(), ReadWorkload(), SweepWorkload(), ReplayWorkload(), PreviewWorkload(),
        CatchUpWorkload(), FollowWorkload(), ClipFetchWorkload(), SnapshotWorkload(), RelayWorkload(), HTTPWorkload(),
        UploadWorkload(),
    ]

    public let context: BenchContext
    /// Names of the workloads to run; nil for all.
    public let only: Set<String>?

    public init(context: BenchContext, only: Set<String>? = nil) {
        self.context = context
        self.only = only
    }

    /// Runs the selected workloads on `machine`.
    ///
    /// - Throws: when a store fails or the systems disagree about the same
    ///   work (then their times would not compare).
    public func run(on machine: MachineInfo) async throws -> BenchReport {
        let started = Date()
        let stopwatch = Stopwatch()
        try FileManager.default.createDirectory(atPath: context.workDirectory, withIntermediateDirectories: true)
        var measurements = Measurements()
        for workload in Self.workloads where only?.contains(workload.name) ?? true {
            try await workload.run(in: context, recording: &measurements)
        }
        let configuration = context.configuration
        return BenchReport(
            machine: machine, configuration: configuration,
            meanCardBytes: [
                "plain": CardDeck(mixed: false, pool: configuration.cardPool).meanSize,
                "mixed": CardDeck(mixed: true, pool: configuration.cardPool).meanSize,
            ],
            measurements: measurements, targets: TargetResult.evaluate(measurements, configuration),
            startedAt: ISO8601DateFormatter().string(from: started), seconds: stopwatch.seconds,
            loadAverageAtEnd: MachineInfo.loadAverage())
    }
}
