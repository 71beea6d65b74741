import Foundation

/// One row of the router: a link path and the experience a link with that path opens.
///
/// ``table`` is the single place that maps paths to experiences, for both
/// ``AppClipLinkParser`` (path to experience) and ``AppClipLinkBuilder`` (experience to path).
struct AppClipRoute: Sendable {
    /// The path exactly as it appears in a canonical link: starts with `/`, no trailing slash,
    /// no percent-encoding. Paths are compared case-sensitively, as RFC 3986 specifies.
    let path: String
    /// Builds the experience from the link's `id`.
    let experience: @Sendable (UUID) -> AppClipExperience

    /// Every experience the clip can open. Adding an experience is one row here
    /// (plus its case in ``AppClipExperience``).
    static let table: [AppClipRoute] = [
        AppClipRoute(path: "/appclip", experience: AppClipExperience.share(recordName:)),
    ]

    /// The route whose path is `path`, or `nil`. Cost: O(number of routes).
    static func route(forPath path: String) -> AppClipRoute? {
        table.first { $0.path == path }
    }

    /// The route that builds `experience`. Every ``AppClipExperience`` case has a row in
    /// ``table``, so this always finds one. Cost: O(number of routes).
    static func route(for experience: AppClipExperience) -> AppClipRoute {
        guard let route = table.first(where: { $0.experience(experience.id) == experience }) else {
            preconditionFailure("AppClipRoute.table has no row for \(experience); add one")
        }
        return route
    }
}
