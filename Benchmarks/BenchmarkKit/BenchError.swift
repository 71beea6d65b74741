/// Why a benchmark run stopped.
public enum BenchError: Error, CustomStringConvertible {
    /// A baseline's C call failed.
    case baseline(BenchSystem, String)
    /// Systems disagreed about the same work, so their times do not compare.
    case mismatch(String)
    /// A process the benchmark spawned failed.
    case process(String)
    /// A file operation of the benchmark's own failed.
    case io(String)

    public var description: String {
        switch self {
        case .baseline(let system, let reason): "\(system.rawValue) baseline failed: \(reason)"
        case .mismatch(let what): "systems disagree: \(what)"
        case .process(let what): "benchmark process failed: \(what)"
        case .io(let what): "benchmark file operation failed: \(what)"
        }
    }
}
