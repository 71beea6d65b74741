/// One workload of the benchmark. Each measures ShareLog and both baselines
/// on the same data in the same run, in rounds with the systems' order
/// rotated, and records every round; the report takes medians and ratios.
///
/// A new workload is a new conformer added to `BenchmarkRunner.workloads`.
public protocol Workload: Sendable {
    /// A short name, for progress lines and `--only`.
    var name: String { get }

    /// Runs the workload, leaving no store behind.
    func run(in context: BenchContext, recording measurements: inout Measurements) async throws
}
