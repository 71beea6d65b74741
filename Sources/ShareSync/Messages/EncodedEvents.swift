import ShareLog

/// Events as they travel: each one's `EventCodec` bytes, kept undecoded so
/// a message can be read without trusting them. `decoded()` checks them.
public struct EncodedEvents: Hashable, Sendable {
    /// Each event's `EventCodec` bytes, in order.
    public var encoded: [[UInt8]]

    /// Events already encoded, taken as they are.
    public init(encoded: [[UInt8]]) { self.encoded = encoded }

    /// Encodes `events` with `EventCodec`.
    public init(_ events: [Event]) { encoded = events.map(EventCodec.encode) }

    /// How many events there are.
    public var count: Int { encoded.count }

    /// The events, decoded with `EventCodec.decode`.
    ///
    /// - Throws: `MessageError.invalidEvent` naming the index of the first
    ///   event that does not decode.
    public func decoded() throws(MessageError) -> [Event] {
        var events: [Event] = []
        events.reserveCapacity(encoded.count)
        for (index, bytes) in encoded.enumerated() {
            do { events.append(try EventCodec.decode(bytes)) } catch { throw .invalidEvent(index: index, error) }
        }
        return events
    }
}
