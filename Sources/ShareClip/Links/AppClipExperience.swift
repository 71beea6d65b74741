import Foundation

/// What an App Clip invocation link asks the clip (or the full app) to show.
///
/// Every experience is identified by one UUID carried in the link's `id` query item.
/// To add an experience: add a case here, give it its `id` below (the compiler insists),
/// and add one row to ``AppClipRoute/table``.
public enum AppClipExperience: Sendable, Hashable {
    /// Show the shared card stored under `recordName`
    /// (`https://<domain>/appclip?id=<uuid>`).
    case share(recordName: UUID)

    /// The UUID the link carries in its `id` query item.
    public var id: UUID {
        switch self {
        case .share(let recordName): recordName
        }
    }
}
