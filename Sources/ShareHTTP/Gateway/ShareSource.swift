import ShareLog

/// Where the gateway reads shares: a `ShareStore` (the main app's, or a
/// replica that follows it), or an in-memory table in tests and fuzzing.
/// Both calls must be safe from many threads at once.
public protocol ShareSource: Sendable {
    /// What the source knows of `name` at `time`; see `ShareStore.fetch`.
    func fetch(_ name: RecordName, at time: Timestamp?) throws -> FetchResult
    /// The events a clip needs of `name`; see `ShareStore.events(of:at:)`.
    func events(of name: RecordName, at time: Timestamp?) throws -> [Event]
}

extension ShareStore: ShareSource {}
