/// One file state a power cut could leave, named by where the cut lands and
/// which unsynced writes reached the disk; `PowerCutSpace.bytes(of:)` makes it.
public struct PowerCutState: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Which of the writes not yet synced at the cut are on disk, each torn
    /// at the sector: whole sectors of each write, in any combination.
    public enum Kind: Sendable, Hashable, Codable {
        /// Only what completed syncs covered.
        case none
        /// Every write made before the cut.
        case all
        /// The first `n` sector writes, in the order they were made (a
        /// disk that writes back in order and stopped part-way).
        case prefix(Int)
        /// For each unsynced sector, its synced bytes or any of the
        /// versions written since, chosen by a generator seeded with this.
        case subset(UInt64)
    }

    /// The index of the cut in `PowerCutSpace.points`.
    public let point: Int
    public let kind: Kind

    public init(point: Int, kind: Kind) {
        self.point = point
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .none: "cut \(point), none of the unsynced writes"
        case .all: "cut \(point), every write"
        case .prefix(let count): "cut \(point), the first \(count) sector writes"
        case .subset(let seed): "cut \(point), subset \(seed)"
        }
    }
}
