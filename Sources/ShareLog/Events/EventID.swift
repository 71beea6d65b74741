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

extension EventID {
    /// The id of share `name`'s TTL end on every replica: its record name's
    /// 16 bytes as the origin, and counter 0, which no replica's own events
    /// use (they count from 1). Every replica that sweeps the share logs the
    /// same event, at the share's `expiresAt`, so a TTL end exists once
    /// however many replicas swept it (docs/ENGINE.md "One TTL end per share").
    public static func ttlEnd(of name: RecordName) -> EventID {
        EventID(origin: ReplicaID(uuid: name.uuid), counter: 0)
    }

    /// Whether this is the id `ttlEnd(of:)` gives some share.
    public var isTTLEnd: Bool { counter == 0 }
}

