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

    /// `sync.session.ended`, with the session's figures as fields.
    var logRecord: LogRecord {
        var fields: [(name: String, value: LogValue)] = [
            ("peer", LogValue(peerText)), ("role", LogValue("\(peer.role)")), ("replica", LogValue("\(peer.replica)")),
            ("directions", LogValue(directions)), ("milliseconds", LogValue(duration.wholeMilliseconds)),
        ]
        switch outcome {
        case .success(let summary):
            fields += [
                ("outcome", "ok"), ("eventsReceived", LogValue(summary.eventsReceived)), ("eventsApplied", LogValue(summary.eventsApplied)),
                ("eventsSent", LogValue(summary.eventsSent)), ("bytesIn", LogValue(summary.bytesIn)), ("bytesOut", LogValue(summary.bytesOut)),
            ]
            let message = "session \(peerText): \(directions): ended well; received \(summary.eventsReceived) events (\(summary.eventsApplied) new), "
                + "sent \(summary.eventsSent), \(summary.bytesIn) bytes in, \(summary.bytesOut) out, \(duration.wholeMilliseconds) ms"
            return LogRecord(.info, "sync.session.ended", message, fields)
        case .failure(let failure):
            fields += [("outcome", "failed"), ("reason", LogValue("\(failure)"))]
            return LogRecord(.warning, "sync.session.ended", "session \(peerText): closed: \(failure)", fields)
        }
    }

    private var directions: String {
        guard peer.role == .main else { return "fetch" }
        let ways = [(SyncDirections.pull, "pull"), (.push, "push"), (.follow, "follow")].filter { peer.directions.contains($0.0) }.map(\.1)
        return ways.isEmpty ? "nothing" : ways.joined(separator: "+")
    }
}
