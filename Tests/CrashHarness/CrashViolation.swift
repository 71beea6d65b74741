/// A broken invariant found when a store is reopened after kills: the harness
/// has found a bug.
public struct CrashViolation: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
