/// What opening a store of an older format did to it.
public struct UpgradeReport: Equatable, Sendable {
    /// The format the store had.
    public let fromVersion: UInt32
    /// The format it has now.
    public let toVersion: UInt32
    /// Log entries replayed to rebuild the derived databases.
    public let eventsReplayed: Int
}
