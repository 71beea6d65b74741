/// The answer to a fetch by record name.
public enum FetchResult: Hashable, Sendable {
    case live(Share)
    case expired(at: Timestamp, reason: ExpiryReason)
    case notFound
}
