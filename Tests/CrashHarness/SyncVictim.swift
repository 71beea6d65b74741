/// What a round of the sync crash run kills with SIGKILL.
public enum SyncVictim: String, CaseIterable, Codable, Sendable {
    /// `sharelog serve` on side A, while sessions and clip fetches run.
    case server = "server A"
    /// The running `sharelog sync --both` session on side B.
    case client = "sync client B"
    /// The writer process on side A…
    case writerA = "writer A"
    /// …and on side B.
    case writerB = "writer B"
}
