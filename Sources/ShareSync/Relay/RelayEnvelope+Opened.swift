extension RelayEnvelope {
    /// What `RelayEnvelope.open(_:key:)` found in a body.
    public enum Opened: Sendable, Equatable {
        /// An encoded event (`EventCodec`): a plain body's, or a sealed
        /// body's after its tag verified.
        case event([UInt8])
        /// A sealed body of `hour`, for which this replica holds no key: its
        /// key has advanced past `hour`, or it has none. The caller applies
        /// the creation without its card. The hour is as the body says it;
        /// nothing in an erased body can be authenticated.
        case erased(hour: Int64)
    }
}
