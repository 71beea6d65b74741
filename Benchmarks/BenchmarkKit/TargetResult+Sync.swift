/// Issue 15's goals for sync, evaluated on the medians of a run.
extension TargetResult {
    /// The catch-up decks, as the figure ids name them.
    private static let catchUpDecks = ["plain", "mixed"]

    /// Catch-up ≥ 0.5x local batched ingest and ≥ 1x Redis's full sync, for
    /// both decks (the worse counts); RssAnon flat in the events for both
    /// processes; follow p50 ≤ 2x (durable commit + round trip); clip
    /// fetches ≥ 0.5x Redis at the most connections, and p99 ≤ 4x p50 at
    /// every concurrency. A goal whose figures were not measured is absent.
    static func syncTargets(_ measurements: Measurements, _ configuration: BenchConfiguration) -> [TargetResult] {
        var results: [TargetResult] = []
        func median(_ id: String, _ system: BenchSystem = .shareLog) -> Double? { measurements.figure(id)?.median(system) }
        func worst(_ pairs: [(String, Double)], lowest: Bool) -> (value: Double, detail: String)? {
            guard let value = lowest ? pairs.map(\.1).min() : pairs.map(\.1).max() else { return nil }
            return (value, pairs.map { "\($0.0) \(Formatting.ratio($0.1))" }.joined(separator: ", "))
        }

        let vsLocal = catchUpDecks.compactMap { deck -> (String, Double)? in
            guard let sync = median("sync.catchup.\(deck)"), let local = median("sync.catchup.\(deck).local"), local > 0 else { return nil }
            return (deck, sync / local)
        }
        if let (value, detail) = worst(vsLocal, lowest: true) {
            results.append(TargetResult(
                id: "sync.catchup.vsLocal", statement: "catch-up ≥ 0.5x ShareLog's local batched ingest",
                value: value, threshold: 0.5, atLeast: true, detail: "events/s; " + detail))
        }
        let vsRedis = catchUpDecks.compactMap { deck in
            measurements.figure("sync.catchup.\(deck)")?.speedRatio(versus: .redis).map { (deck, $0) }
        }
        if let (value, detail) = worst(vsRedis, lowest: true) {
            results.append(TargetResult(
                id: "sync.catchup.vsRedis", statement: "catch-up ≥ 1x a Redis replica's full sync (until its AOF is written)",
                value: value, threshold: 1, atLeast: true, detail: "events/s; " + detail))
        }
        let growth = catchUpDecks.flatMap { deck in
            ["receiver", "server"].compactMap { side -> (String, Double)? in
                guard let half = median("sync.catchup.\(deck).rssAnon.\(side)Half"),
                      let peak = median("sync.catchup.\(deck).rssAnon.\(side)Peak") else { return nil }
                return ("\(deck) \(side)", peak - half)
            }
        }
        if let value = growth.map(\.1).max() {
            results.append(TargetResult(
                id: "sync.catchup.rssAnonFlat",
                statement: "catch-up RssAnon flat in events (growth over the second half of the events ≤ 16 MiB, both processes)",
                value: value, threshold: 16, atLeast: false,
                detail: growth.map { "\($0.0) \(Formatting.value($0.1)) MiB" }.joined(separator: ", ")))
        }
        if let follow = median("sync.follow.p50"), let commit = median("sync.follow.commit.p50"),
           let roundTrip = median("sync.follow.roundTrip.p50"), commit + roundTrip > 0 {
            results.append(TargetResult(
                id: "sync.follow.p50", statement: "follow latency p50 ≤ 2x (durable commit + round trip)",
                value: follow / (commit + roundTrip), threshold: 2, atLeast: false,
                detail: "p50 \(Formatting.value(follow)) ms vs commit \(Formatting.value(commit)) ms + round trip \(Formatting.value(roundTrip)) ms"))
        }
        if let follow = median("sync.follow.otherProcess.p50"), let commit = median("sync.follow.commit.p50"),
           let roundTrip = median("sync.follow.roundTrip.p50"), commit + roundTrip > 0 {
            results.append(TargetResult(
                id: "sync.follow.otherProcess.p50",
                statement: "follow latency p50 ≤ 2x (durable commit + round trip), commit by another process (issue 29)",
                value: follow / (commit + roundTrip), threshold: 2, atLeast: false,
                detail: "p50 \(Formatting.value(follow)) ms vs commit \(Formatting.value(commit)) ms + round trip \(Formatting.value(roundTrip)) ms"))
        }
        let idle = ["follower", "server"].compactMap { role in median("sync.follow.idleCPU.\(role)").map { (role, $0) } }
        if let value = idle.map(\.1).max() {
            results.append(TargetResult(
                id: "sync.follow.idleCPU", statement: "an idle follower and its server use < 10 ms of CPU per minute (issue 29)",
                value: value, threshold: 10, atLeast: false,
                detail: idle.map { "\($0.0) \(Formatting.value($0.1)) ms" }.joined(separator: ", ")))
        }
        if let ratio = median("sync.relay.delay.vsDirect.p50") {
            results.append(TargetResult(
                id: "sync.relay.delay.p50", statement: "relay commit-to-commit delay p50 ≤ 2x direct follow (issue 29)",
                value: ratio, threshold: 2, atLeast: false,
                detail: "p50 \(Formatting.value(median("sync.relay.delay.p50") ?? 0)) ms vs \(Formatting.value(median("sync.relay.delay.direct.p50") ?? 0)) ms; "
                    + "NATS alone, publish to delivery: \(Formatting.value(median("sync.relay.delay.natsAlone.p50") ?? 0)) ms"))
        }
        if let ratio = median("sync.relay.catchup.vsDirect") {
            results.append(TargetResult(
                id: "sync.relay.catchup.vsDirect", statement: "relay catch-up of a new replica ≥ 0.8x direct sync (issue 29)",
                value: ratio, threshold: 0.8, atLeast: true,
                detail: "events/s; from its first commit on: \(Formatting.value(median("sync.relay.catchup.steady") ?? 0)) events/s; "
                    + "NATS alone, a new consumer reading the stream: \(Formatting.value(median("sync.relay.catchup.natsAlone.vsDirect") ?? 0))x"))
        }
        if let idle = median("sync.relay.idleCPU") {
            results.append(TargetResult(
                id: "sync.relay.idleCPU", statement: "an idle relay uses < 10 ms of CPU per minute (issue 29)",
                value: idle, threshold: 10, atLeast: false, detail: "the busier of two relays"))
        }
        if let most = configuration.syncClipConnections.max(),
           let ratio = measurements.figure("sync.clip.c\(most)")?.speedRatio(versus: .redis) {
            let connecting = measurements.figure("sync.clip.c\(most).connecting")?.speedRatio(versus: .redis)
            results.append(TargetResult(
                id: "sync.clip.vsRedis", statement: "clip fetches ≥ 0.5x Redis GET at \(most) connections",
                value: ratio, threshold: 0.5, atLeast: true,
                detail: "fetches/s; vs Redis with a new connection per GET: \(Formatting.ratio(connecting))"))
        }
        let tails = configuration.syncClipConnections.compactMap { connections -> (String, Double)? in
            guard let p50 = median("sync.clip.c\(connections).p50"), let p99 = median("sync.clip.c\(connections).p99"), p50 > 0 else { return nil }
            return ("\(connections) conn.", p99 / p50)
        }
        if let (value, detail) = worst(tails, lowest: false) {
            results.append(TargetResult(
                id: "sync.clip.p99", statement: "clip fetch latency p99 ≤ 4x its p50",
                value: value, threshold: 4, atLeast: false, detail: "p99/p50: " + detail))
        }
        return results
    }
}
