/// The sizes of the upload workload (issue 32, `UploadWorkload`): how many
/// clients upload at once, how long each `wrk` run lasts, and how many
/// shares each library and SQLite anchor creates. Nil in the results of
/// runs from before it, and in `BenchConfiguration.smoke`: the
/// all-workload smoke test leaves it out, and `UploadWorkloadSmokeTests`
/// runs it at `smoke` sizes on its own.
public struct UploadBenchConfiguration: Codable, Sendable {
    /// Concurrent uploading clients, one row each: `wrk` connections for
    /// the gateway, creating tasks for the library, threads for SQLite.
    public var clients: [Int]
    /// Seconds of each `wrk` run against the gateway.
    public var seconds: Int
    /// Shares each anchor (library, SQLite) creates per row and round,
    /// into a fresh store.
    public var anchorShares: Int
    /// Rounds; the systems' order rotates each round. Figures are medians.
    public var rounds: Int
    /// Seconds of uploads before the first round, at the most clients, so
    /// the gateway's store has grown past its first pages.
    public var warmUpSeconds: Int

    public static let full = UploadBenchConfiguration(clients: [1, 8], seconds: 5, anchorShares: 1000, rounds: 3, warmUpSeconds: 3)
    public static let quick = UploadBenchConfiguration(clients: [1, 8], seconds: 2, anchorShares: 300, rounds: 2, warmUpSeconds: 1)
    /// For `UploadWorkloadSmokeTests`: every row and system, 1 s runs.
    public static let smoke = UploadBenchConfiguration(clients: [1, 8], seconds: 1, anchorShares: 16, rounds: 1, warmUpSeconds: 1)
}
