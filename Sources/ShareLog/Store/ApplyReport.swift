/// What `apply` did.
public struct ApplyReport: Hashable, Sendable {
    public let applied: Int
    public let duplicates: Int
}
