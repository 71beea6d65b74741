/// How `sharelog-crash run` runs: parsed from its command line.
public struct CrashRunOptions: Sendable {
    /// SIGKILLs in all.
    public var kills = 50
    /// Concurrent writers per store, one entry per store in turn: `[1, 3]`
    /// alternates single-writer and three-writer stores.
    public var writers = [1, 3]
    /// Seeds every random choice: operations, kill order and delays (the
    /// moment a kill lands also depends on timing, so runs differ anyway).
    public var seed = UInt64.random(in: 0...UInt64(Int64.max))
    /// Kills before the next store starts fresh, bounding each check's cost.
    public var killsPerStore = 24
    /// The longest wait before a kill, in milliseconds.
    public var maxDelayMilliseconds = 60
    /// How long writers may take to open the store and print `ready`; a
    /// writer that takes longer is hung, and fails the run.
    public var startTimeout: Duration = .seconds(60)
    /// Where the stores go; a new temporary directory by default.
    public var directory: String?
    /// Keep the stores after a successful run.
    public var keep = false
    /// Print the report as JSON.
    public var json = false
    /// The workload's name.
    public var workload = "shares"

    public init() {}

    public static let usage = """
        usage: sharelog-crash run [--kills N] [--writers W[,W…]] [--seed S] [--kills-per-store K]
                                  [--max-delay-ms D] [--dir DIR] [--keep] [--json] [--workload shares]
        """

    /// Parses the arguments after `run`.
    ///
    /// - Throws: `CrashViolation` with the usage text for anything unknown.
    public init(arguments: [String]) throws(CrashViolation) {
        var scanner = OptionScanner(arguments, usage: Self.usage)
        while let flag = scanner.nextFlag() {
            switch flag {
            case "--kills": kills = try scanner.number(flag, in: 1...Int.max)
            case "--kills-per-store": killsPerStore = try scanner.number(flag, in: 1...Int.max)
            case "--max-delay-ms": maxDelayMilliseconds = try scanner.number(flag, in: 0...Int.max)
            case "--seed": seed = try scanner.seed(flag)
            case "--writers":
                let counts = try scanner.value(flag).split(separator: ",").map { Int($0) }
                guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 16 }) else {
                    throw scanner.failure("--writers needs counts from 1 to 16, such as 3 or 1,3")
                }
                writers = counts.compactMap { $0 }
            case "--dir": directory = try scanner.value(flag)
            case "--keep": keep = true
            case "--json": json = true
            case "--workload": workload = try scanner.value(flag)
            default: throw scanner.failure("unknown option \(flag)")
            }
        }
    }
}
