import ShareLog
import SharePrimitives

/// How an admitted session ended: what its log line and the server's
/// metrics say of it.
struct SessionEnd {
    /// The peer as the log names it: its address, role and replica id.
    let peerText: String
    let peer: EstablishedPeer
    /// The session's figures, or why it closed.
    let outcome: Result<SyncSummary, SyncFailure>
    /// From the connection's arrival to the session's end.
    let duration: Duration

    var logLine: String {
        switch outcome {
        case .success(let summary):
            return "session \(peerText): \(directions): ended well; received \(summary.eventsReceived) events (\(summary.eventsApplied) new), "
                + "sent \(summary.eventsSent), \(summary.bytesIn) bytes in, \(summary.bytesOut) out, \(duration.wholeMilliseconds) ms"
        case .failure(let failure):
            return "session \(peerText): closed: \(failure)"
        }
    }

    private var directions: String {
        guard peer.role == .main else { return "fetch" }
        let ways = [(SyncDirections.pull, "pull"), (.push, "push"), (.follow, "follow")].filter { peer.directions.contains($0.0) }.map(\.1)
        return ways.isEmpty ? "nothing" : ways.joined(separator: "+")
    }
}
