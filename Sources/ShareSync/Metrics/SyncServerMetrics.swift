import ShareMetrics
import SharePrimitives

/// What a `SyncServer` counts into a `MetricsRegistry` (docs/OPERATIONS.md
/// "Metrics"): sessions by role and outcome, their durations, those
/// running, refusals, and the events and bytes of the sessions that ended.
/// A session's figures count when it ends: a follow session that lasts a
/// week adds its events then, and the store's peer positions
/// (`StoreMetrics`) show its progress meanwhile.
///
/// Thread-safe: the server records from its accept thread and every
/// session thread.
public final class SyncServerMetrics: Sendable {
    private let sessions: Counter
    private let duration: Histogram
    private let active: Gauge
    private let refused: Counter
    private let events: Counter
    private let bytes: Counter

    /// Makes the server's families in `registry`.
    public init(registry: MetricsRegistry) {
        sessions = registry.counter(
            "sharelog_sync_sessions_total", "Sync sessions that ended, by role (main, clip) and outcome (ok, failed).",
            labels: ["role", "outcome"])
        duration = registry.histogram(
            "sharelog_sync_session_duration_seconds", "Sync sessions' durations, from connection to end, by role.", labels: ["role"],
            buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600])
        active = registry.gauge("sharelog_sync_sessions_active", "Sync sessions running, by role.", labels: ["role"])
        refused = registry.counter(
            "sharelog_sync_connections_refused_total",
            "Connections that got no session: busy (their role's places were taken) or handshake (it failed, timed out or was displaced).",
            labels: ["reason"])
        events = registry.counter(
            "sharelog_sync_events_total", "Events of ended sync sessions: received, applied (new here) and sent.", labels: ["direction"])
        bytes = registry.counter("sharelog_sync_bytes_total", "Bytes on the wire of ended sync sessions, frames included.", labels: ["direction"])
        for role in SyncRole.allCases {
            active.set(0, "\(role)")
            for outcome in ["ok", "failed"] { sessions.increment(by: 0, "\(role)", outcome) }
        }
        for reason in ["busy", "handshake"] { refused.increment(by: 0, reason) }
        for direction in ["received", "applied", "sent"] { events.increment(by: 0, direction) }
        for direction in ["received", "sent"] { bytes.increment(by: 0, direction) }
    }

    func started(_ role: SyncRole) { active.add(1, "\(role)") }

    func ended(_ end: SessionEnd) {
        let role = "\(end.peer.role)"
        active.add(-1, role)
        duration.observe(end.duration.fractionalSeconds, role)
        switch end.outcome {
        case .success(let summary):
            sessions.increment(role, "ok")
            events.increment(by: Double(summary.eventsReceived), "received")
            events.increment(by: Double(summary.eventsApplied), "applied")
            events.increment(by: Double(summary.eventsSent), "sent")
            bytes.increment(by: Double(summary.bytesIn), "received")
            bytes.increment(by: Double(summary.bytesOut), "sent")
        case .failure:
            sessions.increment(role, "failed")
        }
    }

    func refusedBusy() { refused.increment("busy") }

    func refusedAtHandshake() { refused.increment("handshake") }
}
