/// What ended a wait on a channel (`ByteChannel.waitReadable(orWake:deadline:)`).
public enum ChannelReadiness: Equatable, Sendable {
    /// The channel has bytes, an end of stream or an error to report: the
    /// next `read` returns without waiting for the peer, except to complete
    /// a TLS record whose first bytes have arrived.
    case readable
    /// The wake-up descriptor is readable. It stays so until its owner
    /// drains it; the channel was not readable when the wait ended.
    case woken
    /// The deadline passed with neither readable.
    case timedOut
}
