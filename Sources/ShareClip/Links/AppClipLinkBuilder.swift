import Foundation

/// Writes the canonical invocation link for an experience:
/// `https://<domain><path>?id=<uuid>`, e.g. `https://cards.example.com/appclip?id=123e4567-e89b-12d3-a456-426614174000`.
///
/// The UUID is written in lowercase, as RFC 9562 §4 recommends for output (Foundation's
/// `uuidString` is uppercase). ``AppClipLinkParser`` configured with the same domain parses
/// every link this builder writes back to the same experience.
public struct AppClipLinkBuilder: Sendable {
    /// The host every link points at.
    public let domain: AppClipDomain

    public init(domain: AppClipDomain = .standard) {
        self.domain = domain
    }

    /// The canonical link as text. Cost: O(1), one string allocation.
    public func link(for experience: AppClipExperience) -> String {
        let path = AppClipRoute.route(for: experience).path
        return "https://\(domain.name)\(path)?id=\(experience.id.uuidString.lowercased())"
    }

    /// The canonical link as a `URL`.
    public func url(for experience: AppClipExperience) -> URL {
        let link = link(for: experience)
        guard let url = URL(string: link) else {
            preconditionFailure("a validated domain, a route path and a UUID always form a URL: \(link)")
        }
        return url
    }
}
