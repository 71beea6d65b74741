import Synchronization

/// What the bad clients of a `HostileCrowd` did, counted on the clients'
/// side, from any thread.
final class HostileTally: Sendable {
    /// One kind's counts.
    struct Counts: Sendable {
        var attempts = 0
        var refused = 0
        /// What each attempt the server let too far said.
        var admitted: [String] = []
        /// Why attempts did not reach the server, first few only.
        var unreached: [String] = []
        var unreachedCount = 0
    }

    private let counts = Mutex<[HostilePeer: Counts]>([:])

    func record(_ kind: HostilePeer, _ outcome: HostilePeer.Outcome) {
        counts.withLock { all in
            var entry = all[kind] ?? Counts()
            entry.attempts += 1
            switch outcome {
            case .refused: entry.refused += 1
            case .admitted(let text): entry.admitted.append(text)
            case .unreached(let text):
                entry.unreachedCount += 1
                if entry.unreached.count < 3 { entry.unreached.append(text) }
            }
            all[kind] = entry
        }
    }

    /// The counts of `kind` so far.
    func counts(of kind: HostilePeer) -> Counts { counts.withLock { $0[kind] ?? Counts() } }

    /// Refusals of every kind so far.
    var refused: Int { counts.withLock { $0.values.reduce(0) { $0 + $1.refused } } }
}
