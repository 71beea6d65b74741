/// An event with its place in this replica's log.
public struct LoggedEvent: Hashable, Sendable {
    /// The log position: 1, 2, 3, … in the order this replica logged
    /// events. A peer's cursor into this log is a position; an event's
    /// identity across replicas is its `EventID`.
    public let position: UInt64
    public let event: Event
    /// The size of its encoding in bytes.
    public let size: Int
}
