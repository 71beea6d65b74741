/// The three systems every workload measures side by side.
public enum BenchSystem: String, CaseIterable, Codable, Sendable {
    /// The engine, through its public API.
    case shareLog = "ShareLog"
    /// ShareLog's schema on raw LMDB in C (CBaseline): the physical limit.
    case cLMDB = "C-LMDB"
    /// SQLite as a user would write the same store (CBaseline).
    case sqlite = "SQLite"

    /// The systems in the order round `round` runs them: rotated each round,
    /// so that slow drifts of the machine hit every system alike.
    public static func order(forRound round: Int) -> [BenchSystem] {
        let all = allCases
        let shift = round % all.count
        return Array(all[shift...] + all[..<shift])
    }
}
