extension RelayEnvelope {
    /// What `RelayEnvelope.open(_:cardKey:)` found in a body.
    public enum Opened: Sendable, Equatable {
        /// A plain body's encoded event (`EventCodec`).
        case plain([UInt8])
        /// A sealed body: the encoded creation without its card, the hour
        /// its card was sealed for, and the card, after its tag verified;
        /// nil when no key of `hour` was held. Without the key nothing in
        /// the body can be authenticated, so `hour` and `redactedEvent`
        /// are then only what the body says.
        case sealed(redactedEvent: [UInt8], hour: Int64, card: [UInt8]?)
    }
}
