/// What the demo did, step by step, and where it left everything: the
/// summary table in text, the document of `demo --json`.
///
/// Each outcome field is set by the step that checked it, and stays nil
/// when the demo stopped before that step.
struct DemoReport: Encodable {
    struct Step: Encodable {
        let number: Int
        let title: String
        /// What happened, in one sentence.
        let outcome: String
        let milliseconds: Double
    }

    struct Places: Encodable {
        let main: String
        let follower: String
        let clip: String
        let app: String
        let socket: String
        /// The Contacts-ready vCard the clip wrote.
        let contact: String
        /// Every child process's standard output and error.
        let logs: String
    }

    /// Step 4: the share the clip opened by its link, as it previewed it.
    struct ClipFetch: Encodable {
        let id: String
        let link: String
        let name: String?
        let title: String?
        let organization: String?
        let photoBytes: Int?
        /// The size of the vCard the clip wrote, byte for byte the card
        /// the main app shared.
        let contactBytes: Int
    }

    /// Step 6: the server's maintenance on main, eight days on.
    struct Expiry: Encodable {
        let now: String
        let expired: Int
        let microsecondsPerShare: Double
        let redacted: Int
    }

    /// Step 8: the full app's handoff from the clip.
    struct Handoff: Encodable {
        /// The share shared after the sweep, which the clip opened.
        let newShare: String
        let sharesAdopted: Int
        let sharesEnded: Int
    }

    let folder: String
    let stores: Places
    var steps: [Step] = []
    var shares = 0
    var withPhotos = 0
    /// Step 3: the gateway's base URL, and the fallback page of the clip's share.
    var gateway: String?
    var fallbackPage: String?
    var clip: ClipFetch?
    /// Step 5: the events the follower held once it caught up.
    var followerCaughtUp: Int?
    var expiry: Expiry?
    /// Step 6: the line of the server's `/metrics` that counts the shares
    /// its maintenance expired.
    var metricsLine: String?
    /// Step 7: how the clip answered for its share, and the expiries the
    /// follower received.
    var clipStatusAfterExpiry: String?
    var followerExpired: Int?
    var handoff: Handoff?
    /// Step 9: `verify` of each store, by name.
    var verified: [String: Bool] = [:]
    /// Why the demo stopped early; nil when every step held.
    var failure: String?

    var succeeded: Bool { failure == nil }
}
