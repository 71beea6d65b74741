import LMDB

/// How `sharelog-crash power` runs: parsed from its command line.
public struct PowerCutOptions: Sendable {
    /// The most states to check (distinct or not).
    public var states = 2000
    /// Operations the writer performs.
    public var operations = 64
    /// Seeds the writer's operations and the choice of states.
    public var seed = UInt64.random(in: 0...UInt64(Int64.max))
    public var durability: Environment.Durability = .full
    /// Where the store and the journal go; a new temporary directory by default.
    public var directory: String?
    /// Keep the store and the journal after a run that kept its promise.
    public var keep = false
    public var json = false
    /// The tests' broken build: the shim skips liblmdb's sync of the data
    /// pages, so the meta page reaches the disk before the data it points to.
    public var dropDataSync = false

    public init() {}

    public static let usage = """
        usage: sharelog-crash power [--states N] [--operations N] [--seed S] [--durability full|nometasync|nosync]
                                    [--dir DIR] [--keep] [--json] [--drop-data-msync]
        """

    /// The names `--durability` takes.
    public static let durabilities: [String: Environment.Durability] = ["full": .full, "nometasync": .noMetaSync, "nosync": .noSync]

    /// The name `--durability` takes for `durability`.
    public static func name(of durability: Environment.Durability) -> String {
        durabilities.first { $0.value == durability }?.key ?? "full"
    }

    /// Parses the arguments after `power`.
    ///
    /// - Throws: `CrashViolation` with the usage text for anything unknown.
    public init(arguments: [String]) throws(CrashViolation) {
        var scanner = OptionScanner(arguments, usage: Self.usage)
        while let flag = scanner.nextFlag() {
            switch flag {
            case "--states": states = try scanner.number(flag, in: 1...Int.max)
            case "--operations": operations = try scanner.number(flag, in: 1...Int.max)
            case "--seed": seed = try scanner.seed(flag)
            case "--durability":
                guard let durability = Self.durabilities[try scanner.value(flag)] else {
                    throw scanner.failure("--durability is full, nometasync or nosync")
                }
                self.durability = durability
            case "--dir": directory = try scanner.value(flag)
            case "--keep": keep = true
            case "--json": json = true
            case "--drop-data-msync": dropDataSync = true
            default: throw scanner.failure("unknown option \(flag)")
            }
        }
    }
}
