/// A message a pull consumer delivered: its bytes, copied out of the
/// client's buffer, and where the stream holds it.
public struct IncomingMessage: Sendable, Equatable {
    public let subject: String
    public let body: [UInt8]
    /// The stream's sequence number of this message: 1, 2, 3, … in the
    /// order the stream stored them, the same on every server.
    public let streamSequence: UInt64
    /// Messages the consumer has not delivered yet, after this one.
    public let pending: UInt64
}
