/// What a relay asks of the JetStream stream it creates, and checks of one
/// that exists (docs/SCALING.md "The stream").
public struct StreamSettings: Sendable, Equatable {
    /// The stream's name (`--stream`).
    public var name: String
    /// The subjects' first token: a relay publishes on
    /// `<prefix>.<origin>.<shard>` and consumes `<prefix>.>`.
    public var subjectPrefix: String
    /// How long JetStream keeps a message. It must be longer than the
    /// longest TTL plus the tombstone horizon (`minimumMaxAge`), so that a
    /// message ages out only after its share ended and was forgotten.
    public var maxAge: Duration
    /// Copies the cluster keeps of each message: 3 or 5 in a cluster, 1 on
    /// a single server.
    public var replicas: Int
    /// JetStream's de-duplication window: a message whose id it has seen
    /// within it is acknowledged and dropped. It covers a relay's retry
    /// after a crash between a publish and its commit.
    public var duplicateWindow: Duration

    /// 30 days (the longest TTL) plus 60 days (the default trim retention,
    /// `ShareStore.trim`), plus one day of margin.
    public static let minimumMaxAge = Duration.seconds(91 * 86_400)

    public init(
        name: String = "SHARELOG", subjectPrefix: String = "shares", maxAge: Duration = minimumMaxAge,
        replicas: Int = 3, duplicateWindow: Duration = .seconds(600)
    ) {
        self.name = name
        self.subjectPrefix = subjectPrefix
        self.maxAge = maxAge
        self.replicas = replicas
        self.duplicateWindow = duplicateWindow
    }

    /// The subject filter that covers every share's messages.
    public var allSubjects: String { "\(subjectPrefix).>" }
}
