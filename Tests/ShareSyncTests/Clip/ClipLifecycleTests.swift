import Testing
import TestTraits

/// Issue 13's "Done means": the App Clip's lifecycle, shown with real
/// `sharelog` processes. A main store is served over a Unix socket
/// (`ClipBench`); clips run `clip open`, `clip last`, `sweep` and
/// `compact` on their own stores, and a full app's store runs `handoff`.
/// Each test checks what a user would see: exit codes, previews, cards
/// byte for byte, the frames on the wire (`FrameRelay`), and the stores'
/// raw files, searched for a marker written into the card by hand.
///
/// Every process runs at a `--now` the test names, never today's date.
/// Serialized: each test runs several processes, sized for a two-core
/// machine on its own.
@Suite(.serialized, .hangDeadline) struct ClipLifecycleTests {
    /// When the shares are made (`ClipBench.created`).
    static let created = ClipBench.created
    /// Half a minute later: every share of the tests is live.
    static let halfMinuteLater = "2026-12-01T10:00:30Z"
    /// Two minutes later: a share of `--ttl 1m` has expired, one of seven
    /// days has not.
    static let twoMinutesLater = "2026-12-01T10:02:00Z"
    /// Eight days later: a share of seven days has expired too.
    static let eightDaysLater = "2026-12-09T10:00:00Z"
}
