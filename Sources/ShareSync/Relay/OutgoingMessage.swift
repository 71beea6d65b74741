/// A message to publish to JetStream, with the id its de-duplication keys on.
public struct OutgoingMessage: Sendable, Equatable {
    public let subject: String
    /// JetStream's `Nats-Msg-Id`: a publish with an id the stream saw within
    /// its duplicate window is acknowledged and not stored again.
    public let messageID: String
    public let body: [UInt8]

    public init(subject: String, messageID: String, body: [UInt8]) {
        self.subject = subject
        self.messageID = messageID
        self.body = body
    }
}
