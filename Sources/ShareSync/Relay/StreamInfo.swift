/// A stream's configuration and state, as JetStream reported them.
public struct StreamInfo: Sendable, Equatable {
    public let name: String
    public let subjects: [String]
    /// When the stream was created, in nanoseconds since 1970: a stream
    /// deleted and made again under the same name has another.
    public let createdNanoseconds: Int64
    /// 0 for no limit.
    public let maxAgeNanoseconds: Int64
    public let replicas: Int
    public let duplicateWindowNanoseconds: Int64
    public let messages: UInt64
    public let bytes: UInt64
    /// The sequence of the oldest message still held (aged-out and purged
    /// messages are below it), and of the newest.
    public let firstSequence: UInt64
    public let lastSequence: UInt64
}
