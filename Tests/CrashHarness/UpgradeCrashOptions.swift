/// How `sharelog-crash upgrade` runs: parsed from its command line.
public struct UpgradeCrashOptions: Sendable {
    /// SIGKILLs in all, one per copy of the format-1 store.
    public var kills = 20
    /// Seeds the store's plan and every delay (the moment a kill lands also
    /// depends on timing, so runs differ anyway).
    public var seed = UInt64.random(in: 0...UInt64(Int64.max))
    /// Shares in the format-1 store.
    public var shares = 3000
    /// Where the stores go; a new temporary directory by default.
    public var directory: String?
    /// Keep the stores after a successful run.
    public var keep = false
    /// Print the report as JSON.
    public var json = false

    public init() {}

    public static let usage = """
        usage: sharelog-crash upgrade [--kills N] [--seed S] [--shares N] [--dir DIR] [--keep] [--json]
        """

    /// Parses the arguments after `upgrade`.
    ///
    /// - Throws: `CrashViolation` with the usage text for anything unknown.
    public init(arguments: [String]) throws(CrashViolation) {
        var scanner = OptionScanner(arguments, usage: Self.usage)
        while let flag = scanner.nextFlag() {
            switch flag {
            case "--kills": kills = try scanner.number(flag, in: 1...1_000_000)
            case "--shares": shares = try scanner.number(flag, in: 1...Format1Store.maximumShares)
            case "--seed": seed = try scanner.seed(flag)
            case "--dir": directory = try scanner.value(flag)
            case "--keep": keep = true
            case "--json": json = true
            default: throw scanner.failure("unknown option \(flag)")
            }
        }
    }
}
