/// Reads a harness mode's `--flag [value]` arguments in order, for the
/// option types of every mode (`CrashRunOptions`, `UpgradeCrashOptions`,
/// `SyncCrashOptions`, `PowerCutOptions`); every error it throws ends with
/// the mode's usage text.
struct OptionScanner {
    private var remaining: ArraySlice<String>
    private let usage: String

    init(_ arguments: [String], usage: String) {
        remaining = arguments[...]
        self.usage = usage
    }

    /// The next flag, or nil at the end.
    mutating func nextFlag() -> String? { remaining.popFirst() }

    /// The value after `flag`.
    mutating func value(_ flag: String) throws(CrashViolation) -> String {
        guard let value = remaining.popFirst() else { throw failure("\(flag) needs a value") }
        return value
    }

    /// The whole number after `flag`, within `range`.
    mutating func number(_ flag: String, in range: ClosedRange<Int>) throws(CrashViolation) -> Int {
        guard let number = Int(try value(flag)), range.contains(number) else {
            throw failure(range.upperBound == .max
                ? "\(flag) needs a whole number of at least \(range.lowerBound)"
                : "\(flag) needs a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// The seed after `flag`.
    mutating func seed(_ flag: String) throws(CrashViolation) -> UInt64 {
        guard let seed = UInt64(try value(flag)) else { throw failure("\(flag) needs a number") }
        return seed
    }

    /// `message`, with the usage text.
    func failure(_ message: String) -> CrashViolation { CrashViolation("\(message)\n\(usage)") }
}
