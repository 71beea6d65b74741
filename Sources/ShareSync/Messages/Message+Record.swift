import ShareLog

extension Message {
    /// One entry of `records`: a fetched record name and its events (its
    /// creation and its end, as the server holds them); none for a name the
    /// server does not know.
    public struct Record: Hashable, Sendable {
        /// The record name the clip asked for.
        public var name: RecordName
        /// At most `Message.eventsPerRecord` events.
        public var events: EncodedEvents

        /// An entry for `name` holding `events`.
        public init(name: RecordName, events: EncodedEvents) {
            self.name = name
            self.events = events
        }
    }
}
