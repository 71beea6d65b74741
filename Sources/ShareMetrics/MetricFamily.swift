/// One metric family as the text exposition format lays it out: a name, a
/// help text, a type, and its samples. The families of a registry are
/// `Counter`, `Gauge` and `Histogram`.
public protocol MetricFamily: AnyObject, Sendable {
    /// The family's name: `[a-zA-Z_:][a-zA-Z0-9_:]*`, with its unit in it
    /// (`_seconds`, `_bytes`) and `_total` on a counter, as Prometheus's
    /// naming conventions ask.
    var name: String { get }
    var help: String { get }
    var type: MetricType { get }
    /// The samples as they are now, in a stable order (their label values).
    func samples() -> [MetricSample]
}

/// The `# TYPE` of a family.
public enum MetricType: String, Sendable {
    case counter, gauge, histogram
}

/// One line of the exposition: a name (the family's, or with a histogram's
/// `_bucket`, `_sum` or `_count`), its labels, and a value.
public struct MetricSample: Sendable {
    public var suffix: String
    public var labels: [(name: String, value: String)]
    public var value: Double

    public init(suffix: String = "", labels: [(name: String, value: String)], value: Double) {
        self.suffix = suffix
        self.labels = labels
        self.value = value
    }
}

/// The names the exposition format allows.
enum MetricName {
    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetterOrUnderscore(first) || first == UInt8(ascii: ":") else { return false }
        return name.utf8.allSatisfy { isLetterOrUnderscore($0) || isDigit($0) || $0 == UInt8(ascii: ":") }
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__` (reserved), and not
    /// `le` (a histogram's own).
    static func isValidLabel(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetterOrUnderscore(first), !name.hasPrefix("__"), name != "le" else { return false }
        return name.utf8.allSatisfy { isLetterOrUnderscore($0) || isDigit($0) }
    }

    private static func isLetterOrUnderscore(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
