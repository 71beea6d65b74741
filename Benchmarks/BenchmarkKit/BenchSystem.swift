/// The systems the workloads measure side by side.
public enum BenchSystem: String, CaseIterable, Codable, Sendable {
    /// The engine, through its public API.
    case shareLog = "ShareLog"
    /// ShareLog's schema on raw LMDB in C (CBaseline): the physical limit.
    case cLMDB = "C-LMDB"
    /// SQLite as a user would write the same store (CBaseline).
    case sqlite = "SQLite"
    /// A redis-server the benchmark starts, driven through hiredis in C
    /// (CBaseline): keys with a TTL and Redis's own active expiry.
    case redis = "Redis"

    /// The embedded stores, each with a log of events: the systems that
    /// sweep explicitly, replay their log, and open in a fresh process for
    /// the clip's cold start. Redis is a server and keeps no history.
    public static let embedded: [BenchSystem] = [.shareLog, .cLMDB, .sqlite]

    /// `systems` in the order round `round` runs them: rotated each round,
    /// so that slow drifts of the machine hit every system alike.
    public static func order(forRound round: Int, among systems: [BenchSystem] = allCases) -> [BenchSystem] {
        let shift = round % systems.count
        return Array(systems[shift...] + systems[..<shift])
    }
}
