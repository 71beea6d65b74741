/// How `sharelog-crash sync` runs: parsed from its command line.
public struct SyncCrashOptions: Sendable {
    /// SIGKILLs in all, one per round.
    public var kills = 20
    /// Seeds every random choice: operations, victims and delays (the
    /// moment a kill lands also depends on timing, so runs differ anyway).
    public var seed = UInt64.random(in: 0...UInt64(Int64.max))
    /// Rounds before the next pair starts fresh, bounding each check's cost.
    public var roundsPerPair = 25
    /// The longest run of the pair before the kill, and after the restart
    /// before the writers stop, in milliseconds.
    public var maxDelayMilliseconds = 400
    /// How long writers may take to open their store and print `ready`.
    public var startTimeout: Duration = .seconds(60)
    /// How long the pair may take to converge once the writers stopped.
    public var convergeTimeout: Duration = .seconds(60)
    /// Where the pairs go; a new temporary directory by default. Keep it
    /// short: the server's socket lives there (at most 107 bytes).
    public var directory: String?
    /// Keep the stores after a successful run.
    public var keep = false
    /// Print the report as JSON.
    public var json = false

    public init() {}

    public static let usage = """
        usage: sharelog-crash sync [--kills N] [--seed S] [--rounds-per-pair R] [--max-delay-ms D]
                                   [--dir DIR] [--keep] [--json]
        """

    /// Parses the arguments after `sync`.
    ///
    /// - Throws: `CrashViolation` with the usage text for anything unknown.
    public init(arguments: [String]) throws(CrashViolation) {
        var scanner = OptionScanner(arguments, usage: Self.usage)
        while let flag = scanner.nextFlag() {
            switch flag {
            case "--kills": kills = try scanner.number(flag, in: 1...1_000_000)
            case "--rounds-per-pair": roundsPerPair = try scanner.number(flag, in: 1...1_000_000)
            case "--max-delay-ms": maxDelayMilliseconds = try scanner.number(flag, in: 0...60_000)
            case "--seed": seed = try scanner.seed(flag)
            case "--dir": directory = try scanner.value(flag)
            case "--keep": keep = true
            case "--json": json = true
            default: throw scanner.failure("unknown option \(flag)")
            }
        }
    }
}
