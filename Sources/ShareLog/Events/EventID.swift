/// An event's identity everywhere: the replica that made it (its origin)
/// and its origin counter there. Totally ordered, so "the smallest id wins"
/// is a deterministic rule on every replica.
///
/// Not to be confused with an event's log position (`LoggedEvent.position`),
/// which says where one replica's log holds it: the same event has one id
/// everywhere and a different position in each replica's log.
public struct EventID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let origin: ReplicaID
    /// The origin counter: 1 for the first event a replica makes, then one
    /// more for each.
    public let counter: UInt64

    public init(origin: ReplicaID, counter: UInt64) {
        self.origin = origin
        self.counter = counter
    }

    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        lhs.origin == rhs.origin ? lhs.counter < rhs.counter : lhs.origin < rhs.origin
    }

    public var description: String { "\(origin)/\(counter)" }
}
