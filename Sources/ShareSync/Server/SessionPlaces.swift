import Synchronization

/// The places of a server's sessions: one pool for mains and a smaller
/// one for clips, so that clips, which need no key, can never take the
/// places of the replicas that sync.
///
/// Only the accept thread takes places (`take`), so a check and a take
/// cannot race; any session thread gives its own place back (`release`).
final class SessionPlaces: Sendable {
    let mainCapacity: Int
    let clipCapacity: Int
    private let mains = Atomic(0)
    private let clips = Atomic(0)

    init(mains: Int, clips: Int) {
        mainCapacity = mains
        clipCapacity = clips
    }

    /// Whether a session of `role` would get a place now.
    func hasRoom(for role: SyncRole) -> Bool {
        (role == .main ? mains.load(ordering: .acquiring) : clips.load(ordering: .acquiring)) < capacity(role)
    }

    /// Takes a place for a session of `role`; false when its pool is full.
    /// Accept thread only.
    func take(_ role: SyncRole) -> Bool {
        guard hasRoom(for: role) else { return false }
        if role == .main { mains.add(1, ordering: .acquiringAndReleasing) } else { clips.add(1, ordering: .acquiringAndReleasing) }
        return true
    }

    /// Gives back a place that `take` gave.
    func release(_ role: SyncRole) {
        if role == .main { mains.subtract(1, ordering: .acquiringAndReleasing) } else { clips.subtract(1, ordering: .acquiringAndReleasing) }
    }

    /// The sessions of both roles now.
    var inUse: Int { mains.load(ordering: .relaxed) + clips.load(ordering: .relaxed) }

    /// The places of `role`'s pool.
    func capacity(_ role: SyncRole) -> Int { role == .main ? mainCapacity : clipCapacity }

    /// `role`'s pool in words, for `busy` and the log: "1 main session",
    /// "16 clip sessions".
    func pool(_ role: SyncRole) -> String {
        let count = capacity(role)
        return "\(count) \(role) session\(count == 1 ? "" : "s")"
    }
}
