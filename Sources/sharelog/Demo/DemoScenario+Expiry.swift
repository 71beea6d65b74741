import Foundation
import SampleCards
import ShareLog
import SharePrimitives

/// Steps 6 to 9: the expiry, what the other processes see of it, the
/// handoff, and the checks at the end.
extension DemoScenario {
    func sweepMain() throws -> String {
        guard let main else { throw CLIError.failure("the main store is not open") }
        clock.advance(by: Self.sweepDelay)
        let now = clock.now()
        let started = ContinuousClock.now
        let swept = try main.sweep(at: now)
        let perShare = (ContinuousClock.now - started).milliseconds * 1000 / Double(max(swept.expired, 1))
        guard swept.expired == shares.count else {
            throw CLIError.failure("the sweep at \(now.iso8601) expired \(swept.expired) shares, not all \(shares.count)")
        }
        let compacted = try main.compact()
        guard compacted.redacted == shares.count else {
            throw CLIError.failure("compaction purged \(compacted.redacted) cards, not all \(shares.count)")
        }
        report.expiry = DemoReport.Expiry(now: now.iso8601, expired: swept.expired, microsecondsPerShare: perShare, redacted: compacted.redacted)
        return "the clock moved to \(now.iso8601); the sweep expired \(swept.expired) shares "
            + "(\(String(format: "%.1f", perShare)) µs a share) and compaction purged \(compacted.redacted) cards"
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
