/// An event's identity everywhere: the replica that made it and its
/// sequence number there. Totally ordered, so "the smallest id wins" is a
/// deterministic rule on every replica.
public struct EventID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let origin: ReplicaID
    /// 1 for the first event a replica makes, then one more for each.
    public let sequence: UInt64

    public init(origin: ReplicaID, sequence: UInt64) {
        self.origin = origin
        self.sequence = sequence
    }

    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        lhs.origin == rhs.origin ? lhs.sequence < rhs.sequence : lhs.origin < rhs.origin
    }

    public var description: String { "\(origin)/\(sequence)" }
}
