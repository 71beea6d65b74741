import ShareLog

/// How long a client may keep what the gateway sent (docs/HTTP.md
/// "Caching"). The rule: no cache keeps a card past its share's expiry.
///
/// - A live share: `Cache-Control: private, max-age=M, must-revalidate`,
///   M = the whole seconds the share has left, at most `maxAge`; `Expires`
///   = now + M. `private`: no shared cache may keep it, so a revocation
///   acts at once.
/// - Every 4xx answer: `no-store`.
/// - The site association file: `public, max-age=3600`; it holds no card.
public struct CachePolicy: Sendable {
    /// The longest any card may be kept, whatever the share has left.
    public var maxAge: Duration

    public init(maxAge: Duration = .seconds(300)) { self.maxAge = maxAge }

    /// The fields for a live share that expires at `expiresAt`, answered at `now`.
    public func fields(expiresAt: Timestamp, now: Timestamp) -> [HTTPHeader] {
        let left = max(0, (expiresAt.milliseconds - now.milliseconds) / 1000)
        let seconds = min(left, maxAge.components.seconds)
        return [
            HTTPHeader("Cache-Control", "private, max-age=\(seconds), must-revalidate"),
            HTTPHeader("Expires", HTTPDate.format(now.advanced(by: .seconds(seconds)))),
        ]
    }

    /// The fields for an answer no cache may store.
    public static let noStore = [HTTPHeader("Cache-Control", "no-store")]

    /// The fields for the site association file.
    public static let siteAssociation = [HTTPHeader("Cache-Control", "public, max-age=3600")]
}
