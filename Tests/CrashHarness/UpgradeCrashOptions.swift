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
        var remaining = arguments[...]
        func value(_ flag: String) throws(CrashViolation) -> String {
            guard let value = remaining.popFirst() else { throw CrashViolation("\(flag) needs a value\n\(Self.usage)") }
            return value
        }
        func number(_ flag: String, in range: ClosedRange<Int>) throws(CrashViolation) -> Int {
            guard let number = Int(try value(flag)), range.contains(number) else {
                throw CrashViolation("\(flag) needs a whole number from \(range.lowerBound) to \(range.upperBound)\n\(Self.usage)")
            }
            return number
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--kills": kills = try number(flag, in: 1...1_000_000)
            case "--shares": shares = try number(flag, in: 1...Format1Store.maximumShares)
            case "--seed":
                guard let seed = UInt64(try value(flag)) else { throw CrashViolation("--seed needs a number\n\(Self.usage)") }
                self.seed = seed
            case "--dir": directory = try value(flag)
            case "--keep": keep = true
            case "--json": json = true
            default: throw CrashViolation("unknown option \(flag)\n\(Self.usage)")
            }
        }
    }
}
