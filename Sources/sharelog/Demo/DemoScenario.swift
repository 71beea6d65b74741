import Foundation
import SampleCards
import ShareClip
import ShareLog
import SharePrimitives

/// The demo's scenario: ShareLog embedded in a main app (this process),
/// its `sharelog serve` process, its `sharelog http` gateway on loopback,
/// a clip process that opens a link over HTTP as an App Clip would, a second
/// main replica following in its own process, the server's own maintenance
/// expiring every share eight days on, and the full app's handoff from the
/// clip. Each step checks its
/// outcome against what the demo itself made (the cards, the count), and
/// throws `CLIError.failure` when it does not hold.
///
/// Every process is a `sharelog` command a user could type (its log is in
/// `logs/`), given `--now` (the server `--now-file`, to see the clock move),
/// so the run is the same on any date. `DemoChildren`
/// stops them all when the scenario ends, however it ends.
final class DemoScenario {
    struct Settings {
        var shares = 1000
        var photoEvery = 10
        /// The demo's "now": the main app's clock starts there.
        var now: Timestamp
        var domain: AppClipDomain
    }

    static let stepCount = 9
    /// How far the clock moves before the expiry: past every share's 7 days.
    static let sweepDelay = Duration.seconds(8 * 86_400)

    let settings: Settings
    let folder: DemoFolder
    let children: DemoChildren
    let clock: DemoClock
    var report: DemoReport
    /// Called with a line when a step starts, ends, or moves on.
    let progress: (String) -> Void

    /// Set by the steps, for the steps after them.
    var main: ShareStore?
    /// The follower's and the full app's stores, opened here beside the
    /// processes that write them, to watch and check them.
    var followerStore: ShareStore?
    var appStore: ShareStore?
    var server: DemoChild?
    /// The server's metrics listener, `http://127.0.0.1:PORT`.
    var metricsBase: String?
    var gateway: DemoChild?
    var follower: DemoChild?
    var shares: [CreatedShare] = []
    var cards: [[UInt8]] = []

    init(settings: Settings, folder: DemoFolder, progress: @escaping (String) -> Void) throws {
        self.settings = settings
        self.folder = folder
        self.progress = progress
        children = DemoChildren(folder: folder)
        clock = try DemoClock(settings.now, file: folder.appending("now"))
        report = DemoReport(folder: folder.path, stores: DemoReport.Places(
            main: folder.appending("main"), follower: folder.appending("follower"), clip: folder.appending("clip"),
            app: folder.appending("app"), socket: folder.appending(DemoFolder.socketName), contact: folder.appending("contact.vcf"),
            logs: folder.logs))
    }

    var places: DemoReport.Places { report.stores }
    var endpoint: String { "unix:\(places.socket)" }

    /// Runs every step, then stops every process it started; records a
    /// failing step's reason in `report.failure` and stops there.
    func run() -> DemoReport {
        do {
            try step(1, "Main app: create \(settings.shares) shares") { try createShares() }
            try step(2, "Main server: sharelog serve on a Unix socket") { try startServer() }
            try step(3, "Gateway: sharelog http on loopback") { try startGateway() }
            try step(4, "Clip: open one share's App Clip link over HTTP") { try openClip() }
            try step(5, "Second main replica: follow the first") { try startFollower() }
            try step(6, "8 days later: maintenance in the server") { try awaitMaintenance() }
            try step(7, "Clip and follower see the expiry") { try seeExpiry() }
            try step(8, "Full app: adopt the clip's state (handoff)") { try handOff() }
            try step(9, "Stop the processes, verify every store") { try verifyStores() }
        } catch {
            report.failure = "\(error)"
        }
        children.stopAll()
        return report
    }

    /// Runs one step, timed, with a progress line before and after.
    private func step(_ number: Int, _ title: String, _ body: () throws -> String) throws {
        progress("[\(number)/\(Self.stepCount)] \(title)")
        let started = ContinuousClock.now
        do {
            let outcome = try body()
            let elapsed = ContinuousClock.now - started
            report.steps.append(DemoReport.Step(number: number, title: title, outcome: outcome, milliseconds: elapsed.milliseconds))
            progress("      done in \(String(format: "%.0f", elapsed.milliseconds)) ms")
        } catch {
            throw CLIError.failure("step \(number) (\(title)) failed: \(error)")
        }
    }

    /// The global options of a child on `store`, at the demo clock's time,
    /// logging text lines, which the demo reads.
    func sharelog(_ store: String, _ arguments: String...) -> [String] {
        ["--store", store, "--now", clock.now().iso8601, "--domain", settings.domain.name, "--log-format", "text"] + arguments
    }

    // MARK: - Steps 1 to 4

    private func createShares() throws -> String {
        var options = ShareStore.Options()
        options.clock = clock
        options.linkDomain = settings.domain
        let store = try ShareStore.open(at: places.main, creatingIfMissing: true, options: options)
        main = store
        cards = (0..<settings.shares).map { SampleCard.make(index: $0, photoBytes: $0 % settings.photoEvery == 0 ? 45_000 : nil) }
        for (index, card) in cards.enumerated() {
            shares.append(try store.create(vCard: card))
            if (index + 1) % 100 == 0 { progress("      \(index + 1) of \(settings.shares) created") }
        }
        report.shares = shares.count
        report.withPhotos = cards.indices.filter { $0 % settings.photoEvery == 0 }.count
        return "\(shares.count) shares (\(report.withPhotos) with a photo) created in the main app's embedded store, each its own durable commit"
    }

    /// The main server: it maintains the store every second, on the demo's
    /// clock (`--now-file`), and serves its metrics on a free loopback port.
    private func startServer() throws -> String {
        let arguments = [
            "--store", places.main, "--now-file", clock.file, "--domain", settings.domain.name, "--log-format", "text", "serve", "--listen", endpoint,
            "--maintenance-every", "1", "--metrics", "tcp:127.0.0.1:0",
        ]
        let child = try children.start("serve", arguments)
        try child.waitForErrorLine(containing: "sharelog: serving", timeout: .seconds(30))
        guard let line = child.errors.split(separator: "\n").first(where: { $0.hasPrefix("sharelog: metrics: serving") }),
              let on = line.range(of: " on tcp:", options: .backwards) else {
            throw CLIError.failure("sharelog serve did not say where it serves its metrics; see \(child.errorPath)")
        }
        server = child
        let base = "http://\(line[on.upperBound...])"
        metricsBase = base
        return "sharelog serve (pid \(child.pid)) serves the main store on \(endpoint), maintains it every second, "
            + "and its metrics at \(base)/metrics"
    }

    /// The link's domain, served: the gateway on a free loopback port, with
    /// example app ids so its site association file and banner are real.
    private func startGateway() throws -> String {
        // The server maintains the store; the gateway, whose clock stays
        // at the start, leaves it to the server.
        let child = try children.start("http", sharelog(
            places.main, "http", "--listen", "tcp:127.0.0.1:0", "--app-id", Self.clipAppID, "--full-app-id", Self.fullAppID,
            "--app-store-id", Self.appStoreID, "--maintenance", "off"))
        try child.waitForErrorLine(containing: "http: serving", timeout: .seconds(30))
        guard let line = child.errors.split(separator: "\n").first(where: { $0.contains("http: serving") }),
              let at = line.range(of: " at "), let on = line.range(of: " on ", options: .backwards) else {
            throw CLIError.failure("sharelog http did not say where it serves; see \(child.errorPath)")
        }
        gateway = child
        report.gateway = String(line[at.upperBound..<on.lowerBound])
        report.fallbackPage = "\(report.gateway!)/appclip?id=\(shares[0].recordName)"
        return "sharelog http (pid \(child.pid)) answers the main store's links at \(report.gateway!): the page, the vCard, "
            + "the JSON record, the clip's events and the site association file"
    }

    /// Example app ids for the demo's gateway (team ABCDE12345).
    static let clipAppID = "ABCDE12345.com.example.cards.Clip"
    static let fullAppID = "ABCDE12345.com.example.cards"
    static let appStoreID = "1234567890"

    /// `clip open LINK` over HTTP, from the demo's gateway: one request, one answer.
    func openOverHTTP(_ label: String, _ link: String) throws -> (status: Int32, output: String, errors: String) {
        guard let base = report.gateway else { throw CLIError.failure("the gateway is not running") }
        return try children.run(label, sharelog(places.clip, "--json", "clip", "open", link, "--http", base))
    }

    private func openClip() throws -> String {
        let share = shares[0], card = cards[0]
        let opened = try openOverHTTP("clip-open", share.link)
        guard opened.status == 0, let answer = Self.json(opened.output), answer["status"] as? String == "live" else {
            throw CLIError.failure("clip open \(share.link) exited \(opened.status): \(opened.errors)")
        }
        let preview = answer["preview"] as? [String: Any] ?? [:]
        // The relaunch, offline: the card from the clip's own store, into a file for Contacts.
        let saved = try children.run("clip-last", sharelog(places.clip, "clip", "last", "--vcard"), outputPath: places.contact)
        let written = FileManager.default.contents(atPath: places.contact).map { [UInt8]($0) }
        guard saved.status == 0, written == card else {
            throw CLIError.failure("clip last --vcard exited \(saved.status) and wrote \(written?.count ?? 0) bytes, not the \(card.count) shared: \(saved.errors)")
        }
        let fetch = DemoReport.ClipFetch(
            id: "\(share.recordName)", link: share.link, name: preview["name"] as? String, title: preview["title"] as? String,
            organization: preview["organization"] as? String,
            photoBytes: (preview["photo"] as? [String: Any])?["byteCount"] as? Int, contactBytes: card.count)
        report.clip = fetch
        let photo = fetch.photoBytes.map { "a \($0)-byte photo" } ?? "no photo"
        return "the clip fetched \(fetch.name ?? "?") (\(fetch.title ?? "?"), \(fetch.organization ?? "?"), \(photo)) over HTTP "
            + "and wrote the Contacts-ready vCard (\(card.count) bytes) to contact.vcf"
    }

    private func startFollower() throws -> String {
        let made = try children.run("follower-init", sharelog(places.follower, "init"))
        guard made.status == 0 else { throw CLIError.failure("init of the follower's store exited \(made.status): \(made.errors)") }
        let started = ContinuousClock.now
        follower = try children.start("follower", sharelog(places.follower, "sync", "--connect", endpoint, "--follow", "--heartbeat", "1"))
        let replica = try ShareStore.open(at: places.follower)
        followerStore = replica
        let held = try waitUntil("the follower holds \(shares.count) events", timeout: .seconds(60)) {
            let events = try replica.stats(at: clock.now()).events
            return events >= shares.count ? events : nil
        }
        report.followerCaughtUp = held
        return "a second replica, its own sharelog sync --follow process (pid \(follower!.pid)), "
            + "caught up \(held) events in \(Int((ContinuousClock.now - started).milliseconds)) ms and keeps following"
    }

    /// Polls `check` every 10 ms until it gives a value, for at most `timeout`.
    ///
    /// - Throws: `CLIError.failure` naming `what` at the deadline, or when
    ///   a child the demo relies on (the server, the follower) has exited.
    func waitUntil<Value>(_ what: String, timeout: Duration, _ check: () throws -> Value?) throws -> Value {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try check() { return value }
            for child in [server, gateway, follower].compactMap({ $0 }) where !child.isRunning {
                throw CLIError.failure("\(child.label) exited (status \(child.exitStatus ?? 1)) while waiting until \(what); see \(child.errorPath)")
            }
            guard ContinuousClock.now < deadline else { throw CLIError.failure("gave up after \(timeout) waiting until \(what)") }
            usleep(10_000)
        }
    }

    static func json(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }
}
