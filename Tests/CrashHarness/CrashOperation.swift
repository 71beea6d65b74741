/// One operation a crash-test writer is about to perform, printed in its
/// `begin` line before the call and repeated in its `ack` line after it.
///
/// Everything the checker needs to recognise the operation's effects is
/// here, decided before the call: even an operation killed half-way can be
/// matched against the store.
public struct CrashOperation: Codable, Hashable, Sendable {
    /// The writer slot (a concurrent writer, kept across restarts); the
    /// parent's own probe writes use `CrashOperation.probeSlot`.
    public var slot: Int
    /// The operation's number in its slot: 0, 1, 2, … across restarts.
    public var number: Int
    /// What it does; the workload defines the kinds (`create`, `revoke`,
    /// `sweep`, `compact` for shares).
    public var kind: String
    /// The writer's clock during the operation, in milliseconds.
    public var time: Int64
    /// A create's card number (`CrashCard.bytes(index:)`).
    public var card: Int?
    /// A create's time to live, in seconds.
    public var ttlSeconds: Int64?
    /// A revoke's record name.
    public var target: String?

    public static let probeSlot = -1

    public init(slot: Int, number: Int, kind: String, time: Int64,
                card: Int? = nil, ttlSeconds: Int64? = nil, target: String? = nil) {
        self.slot = slot
        self.number = number
        self.kind = kind
        self.time = time
        self.card = card
        self.ttlSeconds = ttlSeconds
        self.target = target
    }
}
