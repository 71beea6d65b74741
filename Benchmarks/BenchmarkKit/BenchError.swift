/// Why a benchmark run stopped.
public enum BenchError: Error, CustomStringConvertible {
    /// A baseline's C call failed.
    case baseline(BenchSystem, String)
    /// Systems disagreed about the same work, so their times do not compare.
    case mismatch(String)
    /// A process the benchmark spawned failed.
    case process(String)

    public var description: String {
        switch self {
        case .baseline(let system, let reason): "\(system.rawValue) baseline failed: \(reason)"
        case .mismatch(let what): "systems disagree: \(what)"
        case .process(let what): "benchmark process failed: \(what)"
        }
    }
}
