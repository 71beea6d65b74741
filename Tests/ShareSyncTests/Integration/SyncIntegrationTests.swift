import Testing
import TestTraits

/// Issue 12's "Done means", shown with real `sharelog` processes: `serve`
/// on a Unix socket in a temporary directory, `sync` and the store
/// commands as a user runs them. Each test builds its stores (the CLI or
/// `SeedStore`), runs the processes, and checks what a user would see:
/// cards byte for byte, counts the test made, ids `share create` printed.
///
/// Serialized: each test runs several processes and is sized for a
/// two-core machine on its own.
@Suite(.serialized, .hangDeadline) struct SyncIntegrationTests {
    /// `--now` of every process: three hours after `SeedStore.createdAt`,
    /// so shares with a one-hour TTL have ended and those of seven days
    /// have not.
    static let now = "2026-12-01T13:00:00Z"
}
