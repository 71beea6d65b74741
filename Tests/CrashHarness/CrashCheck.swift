/// The outcome of checking one store against its history.
public struct CrashCheck: Sendable {
    /// Acknowledged operations whose effects were checked.
    public var operationsChecked = 0
    /// Operations in doubt whose effects were found in the store.
    public var inDoubtApplied = 0
    /// Log entries read.
    public var events = 0
    /// Broken invariants; empty when the store is consistent.
    public var violations: [CrashViolation] = []

    public init() {}

    mutating func fail(_ message: String) { violations.append(CrashViolation(message)) }
}
