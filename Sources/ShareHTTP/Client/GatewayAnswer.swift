import ShareLog

/// What the gateway said of one share: its events, decoded and checked to
/// be that share's, and whether it is live.
///
/// The events are the ones a sync clip fetch receives for the same name
/// (docs/SYNC.md "`records`"): apply them to the clip's store with
/// `ShareStore.apply(_:)` and the store answers for the share as after a
/// sync fetch.
public enum GatewayAnswer: Hashable, Sendable {
    /// 200: the share is live by the gateway's clock; at least its creation.
    case live([Event])
    /// 410: the share expired or was revoked, by the gateway's clock; its
    /// events as the gateway's store holds them (a creation without its
    /// card, and the end once that store logged it).
    case ended([Event])
    /// 404: the gateway knows no share of that name; no events.
    case unknown

    /// The events to apply; none for `unknown`.
    public var events: [Event] {
        switch self {
        case .live(let events), .ended(let events): events
        case .unknown: []
        }
    }
}
