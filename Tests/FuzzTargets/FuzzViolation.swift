/// A documented contract that did not hold for a fuzz input: a ShareLog bug
/// even though nothing trapped.
public struct FuzzViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which contract broke, and how.
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { "contract violated: \(message)" }

    /// Throws a violation with `message` unless `condition` holds.
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzViolation) {
        if !condition { throw FuzzViolation(message()) }
    }
}
