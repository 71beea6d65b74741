import Foundation
import SampleCards
import ShareHTTP
import ShareLog
import SharePrimitives

/// Steps 6 to 9: the expiry, what the other processes see of it, the
/// handoff, and the checks at the end.
extension DemoScenario {
    /// Moves the clock past every share's end and waits for the server's
    /// own maintenance to expire them all and purge their cards; then reads
    /// the server's metrics, which say so too.
    func awaitMaintenance() throws -> String {
        guard let main, let metrics = metricsBase else { throw CLIError.failure("the main store or its server is not running") }
        try clock.advance(by: Self.sweepDelay)
        let now = clock.now()
        let expiredLine = "sharelog_maintenance_items_total{item=\"expired\"} \(shares.count)"
        // The pass commits, then reports to the metrics: both are waited for.
        let (stats, scrape) = try waitUntil("the server's maintenance expires all \(shares.count) shares, purges their cards and counts them",
                                            timeout: .seconds(60)) { () throws -> (StoreStats, String)? in
            let stats = try main.stats(at: now)
            guard stats.expired == shares.count, stats.pendingRedactions == 0 else { return nil }
            let scrape = try Self.scrape(metrics)
            return scrape.contains(expiredLine) ? (stats, scrape) : nil
        }
        guard let sweepSeconds = Self.sample("sharelog_sweep_duration_seconds_sum", in: scrape),
              let redacted = Self.sample("sharelog_maintenance_items_total{item=\"redacted\"}", in: scrape) else {
            throw CLIError.failure("the server's metrics at \(metrics)/metrics do not hold \(expiredLine) and the sweep's duration")
        }
        report.metricsLine = expiredLine
        let perShare = sweepSeconds * 1_000_000 / Double(max(stats.expired, 1))
        report.expiry = DemoReport.Expiry(now: now.iso8601, expired: stats.expired, microsecondsPerShare: perShare, redacted: Int(redacted))
        return "the clock moved to \(now.iso8601); the server's maintenance expired \(stats.expired) shares "
            + "(\(String(format: "%.1f", perShare)) µs a share) and purged \(Int(redacted)) cards; its /metrics says \(expiredLine)"
    }

    /// The text of a `GET` of `base`'s `/metrics`.
    private static func scrape(_ base: String) throws -> String {
        do {
            let answer = try GatewayClient().get(try GatewayURL(base: base, path: "/metrics"))
            guard answer.status == 200 else { throw CLIError.failure("\(base)/metrics answered \(answer.status)") }
            return String(decoding: answer.body, as: UTF8.self)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure("cannot read the server's metrics: \(error)")
        }
    }

    /// The value of the exposition line that starts with `series` and a space.
    private static func sample(_ series: String, in exposition: String) -> Double? {
        exposition.split(separator: "\n").lazy.compactMap { line in
            line.hasPrefix(series + " ") ? Double(line.dropFirst(series.count + 1)) : nil
        }.first
    }

    func seeExpiry() throws -> String {
        guard let link = report.clip?.link, let followerStore else { throw CLIError.failure("no clip share or follower to check") }
        let opened = try openOverHTTP("clip-reopen", link)
        let status = Self.json(opened.output)?["status"] as? String
        guard opened.status == 4, status == "expired" else {
            throw CLIError.failure("the clip read its share as \(status ?? "nothing") (exit \(opened.status)), not expired: \(opened.errors)")
        }
        report.clipStatusAfterExpiry = status
        let now = clock.now()
        let expired = try waitUntil("the follower holds all \(shares.count) expiries", timeout: .seconds(60)) {
            let stats = try followerStore.stats(at: now)
            return stats.events >= 2 * shares.count && stats.expired == shares.count ? stats.expired : nil
        }
        report.followerExpired = expired
        return "the clip fetched its link again (410 from the gateway) and reads its share as expired; the follower applied all \(expired) expiries"
    }

    func handOff() throws -> String {
        guard let main else { throw CLIError.failure("the main store is not open") }
        let card = SampleCard.make(index: shares.count)
        let fresh = try main.create(vCard: card)
        let opened = try openOverHTTP("clip-open-new", fresh.link)
        guard opened.status == 0 else {
            throw CLIError.failure("clip open of the new share exited \(opened.status): \(opened.errors)")
        }
        let handed = try children.run("handoff", sharelog(places.app, "--json", "handoff", "--from", places.clip, "--create"))
        let answer = Self.json(handed.output) ?? [:]
        let adopted = answer["sharesAdopted"] as? Int ?? -1, ended = answer["sharesEnded"] as? Int ?? -1
        guard handed.status == 0, adopted == 1, ended == 1 else {
            throw CLIError.failure("handoff exited \(handed.status), adopting \(adopted) shares with \(ended) ended, not 1 and 1: \(handed.errors)")
        }
        let app = try ShareStore.open(at: places.app)
        appStore = app
        guard case .live(let share) = try app.fetch(fresh.recordName, at: clock.now()), share.vCard == card else {
            throw CLIError.failure("the full app does not hold the new share \(fresh.recordName) with its card")
        }
        report.handoff = DemoReport.Handoff(newShare: "\(fresh.recordName)", sharesAdopted: adopted, sharesEnded: ended)
        return "main shared one more card and the clip opened it; the full app adopted that live share from the clip "
            + "(the expired one stayed behind), and the clip's store may be deleted"
    }

    func verifyStores() throws -> String {
        for child in [follower, gateway, server].compactMap({ $0 }) { children.stop(child) }
        follower = nil
        gateway = nil
        server = nil
        var opened: [(String, ShareStore)] = []
        if let main { opened.append(("main", main)) }
        if let followerStore { opened.append(("follower", followerStore)) }
        opened.append(("clip", try ShareStore.open(at: places.clip)))
        if let appStore { opened.append(("app", appStore)) }
        for (name, store) in opened { report.verified[name] = try store.verify().isConsistent }
        let failed = opened.map(\.0).filter { report.verified[$0] != true }
        guard failed.isEmpty else { throw CLIError.failure("verify found the projections of \(failed.joined(separator: ", ")) differ from their logs") }
        return "the server, the gateway and the follower stopped; verify passed on \(opened.map(\.0).joined(separator: ", "))"
    }
}
