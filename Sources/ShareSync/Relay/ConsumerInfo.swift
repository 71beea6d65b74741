/// A durable consumer's configuration and progress, as JetStream reported
/// them: what `RelayConsumer` needs to decide whether to bind to a
/// consumer that exists or make it again.
public struct ConsumerInfo: Sendable, Equatable {
    /// The subjects it delivers (empty for the whole stream).
    public let filterSubject: String
    /// Whether one acknowledgement covers every message before it (`AckAll`).
    public let acknowledgesAll: Bool
    /// The stream sequence of the last message it delivered (acknowledged
    /// or not); one less than its start sequence before its first delivery.
    public let deliveredStreamSequence: UInt64
}
