import Foundation
import SampleCards
import ShareHTTP
import ShareLog
import Synchronization

/// Fuzzes the HTTP gateway's pure handler, `Gateway.respond(to:)`, over a
/// real `ShareStore` made once per process (in /dev/shm when there is one)
/// that holds a live share of a hostile card (script in FN, an `onerror`
/// in TITLE, quotes in ORG, an SVG photo), a live sample card with a JPEG
/// photo, a share that expired (ttl) and one that was revoked.
///
/// The input (`GatewayFuzzInput`) becomes a request: method, target,
/// `Accept`, `If-None-Match`, `X-Forwarded-For`, header size and peer,
/// sent up to four times to fresh gateways (with tight limits, so 429 is
/// reached) with the configuration it picks. For a `GET` or `HEAD`, the same request goes as
/// `GET` to one gateway and as `HEAD` to a twin, and the two answers must
/// be identical: the server sends `HEAD`'s `Content-Length` from the body.
///
/// Contracts on every answer: no trap; the status is one docs/HTTP.md
/// lists (200, 304, 400, 404, 405, 406, 410, 414, 429, 431); `nosniff`,
/// `Referrer-Policy: no-referrer` and the `Date` of the gateway's clock;
/// every 4xx `no-store`; 405 with `Allow`, 429 with `Retry-After`; a 200 or
/// 304 on the link route only for a live share, with `max-age` at most 300
/// and the seconds it has left and `Expires` = `Date` + `max-age`; a 304
/// has no body; a page holds no `<script` and no `on…=` attribute; every
/// JSON answer parses.
enum GatewayFuzzTarget {
    static let now = Timestamp(milliseconds: 1_800_000_000_000)
    static let liveSeconds: Int64 = 120
    static let unknown = RecordName(uuid: UUID(uuidString: "0badc0de-1111-4222-8333-444444444444")!)
    static let trustedProxy = ClientAddress.ipv4(0x0A00_0001)

    /// The hostile card: everything in it tries to reach the page as markup.
    static let hostileCard: [UInt8] = {
        let svg = Data("<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(4)\"><script>alert(5)</script></svg>".utf8)
        return Array("""
            BEGIN:VCARD\r
            VERSION:3.0\r
            FN:<script>alert(1)</script>\r
            TITLE:"><img src=x onerror=alert(2)>\r
            ORG:O'Hare "Quotes" & <b onmouseover='alert(3)'>\r
            PHOTO;ENCODING=b;TYPE=image/svg+xml:\(svg.base64EncodedString())\r
            END:VCARD\r

            """.utf8)
    }()

    /// The store and its shares, made once: a fresh store per input would
    /// cost more than the handler does.
    struct Shares: Sendable {
        let directory: String
        let store: ShareStore
        let live: RecordName
        let photo: RecordName
        let expired: RecordName
        let revoked: RecordName

        var names: [RecordName] { [live, photo, expired, revoked, GatewayFuzzTarget.unknown] }
    }

    static let shares: Result<Shares, FuzzViolation> = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let directory = (base as NSString).appendingPathComponent("sharelog-fuzz-gateway-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        atexit { GatewayFuzzTarget.removeStore() }
        do {
            let clock = StepClock(now.advanced(by: .seconds(-3600)))
            var options = ShareStore.Options()
            options.clock = clock
            options.environment.durability = .noSync
            let store = try ShareStore.open(at: directory, creatingIfMissing: true, options: options)
            let expired = try store.create(vCard: SampleCard.make(index: 1), ttl: .seconds(60)).recordName
            let revoked = try store.create(vCard: SampleCard.make(index: 2), ttl: .seconds(86_400)).recordName
            clock.set(now.advanced(by: .seconds(-600)))
            try store.revoke(revoked)
            clock.set(now)
            let live = try store.create(vCard: hostileCard, ttl: .seconds(liveSeconds)).recordName
            let photo = try store.create(vCard: SampleCard.make(index: 3, photoBytes: 64), ttl: .seconds(7 * 86_400)).recordName
            return .success(Shares(directory: directory, store: store, live: live, photo: photo, expired: expired, revoked: revoked))
        } catch {
            return .failure(FuzzViolation("cannot make the gateway's store in \(directory): \(error)"))
        }
    }()

    private static func removeStore() {
        if case .success(let shares) = shares { try? FileManager.default.removeItem(atPath: shares.directory) }
    }

    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        let shares = try shares.get()
        let fuzz = GatewayFuzzInput(Array(input), names: shares.names.map(\.description))
        let configuration = fuzz.configuration
        let gateway = Gateway(source: shares.store, configuration: configuration, clock: FixedClock(now), limitClock: FixedClock(now))
        let twin = Gateway(source: shares.store, configuration: configuration, clock: FixedClock(now), limitClock: FixedClock(now))
        var request = fuzz.request
        if fuzz.ifNoneMatchIsTheLiveTag {
            // The tag the live share had in the form asked for, as a
            // browser would send it back, whatever the target now names.
            let probe = Gateway(source: shares.store, configuration: configuration, clock: FixedClock(now), limitClock: FixedClock(now))
            let plain = GatewayRequest(method: "GET", target: "/appclip?id=\(shares.live)", accept: request.accept)
            request.ifNoneMatch = (probe.respond(to: plain).header("ETag") ?? "") + (request.ifNoneMatch ?? "")
        }
        let isRead = request.method == "GET" || request.method == "HEAD"
        var last: GatewayResponse?
        for _ in 0..<fuzz.repeats {
            var get = request
            if isRead { get.method = "GET" }
            let response = gateway.respond(to: get)
            try check(response, to: get, shares: shares, configuration: configuration)
            if isRead {
                var head = request
                head.method = "HEAD"
                let headResponse = twin.respond(to: head)
                try FuzzViolation.check(
                    headResponse.status == response.status && headResponse.headers == response.headers && headResponse.body == response.body,
                    "HEAD got \(headResponse.status) \(headResponse.headers), GET got \(response.status) \(response.headers)")
            }
            last = response
        }
        guard let last else { throw FuzzViolation("no request was made") }
        let summary = "\(last.status) on \(last.route.rawValue)"
        return [200, 304].contains(last.status.code) ? .accepted(summary) : .rejected(summary)
    }

    static let documentedStatuses: Set<Int> = [200, 304, 400, 404, 405, 406, 410, 414, 429, 431]

    private static func check(
        _ response: GatewayResponse, to request: GatewayRequest, shares: Shares, configuration: GatewayConfiguration
    ) throws(FuzzViolation) {
        let status = response.status.code
        let said = "\(request.method) \(request.target.debugDescription) got \(response.status)"
        try FuzzViolation.check(documentedStatuses.contains(status), "\(said): not a documented status (\(response.failure ?? ""))")
        try FuzzViolation.check(response.header("X-Content-Type-Options") == "nosniff", "\(said) without nosniff")
        try FuzzViolation.check(response.header("Referrer-Policy") == "no-referrer", "\(said) without Referrer-Policy")
        try FuzzViolation.check(response.header("Date") == "Fri, 15 Jan 2027 08:00:00 GMT", "\(said) dated \(response.header("Date") ?? "nil")")
        if response.status.isClientError {
            try FuzzViolation.check(response.header("Cache-Control") == "no-store", "\(said) that a cache may store")
        }
        if status == 405 { try FuzzViolation.check(response.header("Allow") == "GET, HEAD", "\(said) without Allow") }
        if status == 429 { try FuzzViolation.check(Int(response.header("Retry-After") ?? "").map { $0 >= 1 } == true, "\(said) without Retry-After") }
        if status == 304 { try FuzzViolation.check(response.sentBody(for: request.method) == 0, "\(said) with a body") }
        if response.route == .share, status == 200 || status == 304 {
            try FuzzViolation.check(
                response.recordName == shares.live || response.recordName == shares.photo,
                "\(said) for \(response.recordName.map { "\($0)" } ?? "no share"), which is not live")
            let left = response.recordName == shares.live ? liveSeconds : 7 * 86_400
            let maxAge = min(left, configuration.cache.maxAge.components.seconds)
            try FuzzViolation.check(
                response.header("Cache-Control") == "private, max-age=\(maxAge), must-revalidate",
                "\(said) with Cache-Control \(response.header("Cache-Control") ?? "nil"), not max-age=\(maxAge)")
            try FuzzViolation.check(
                response.header("Expires") == HTTPDate.format(now.advanced(by: .seconds(maxAge))), "\(said) with Expires \(response.header("Expires") ?? "nil")")
        }
        let type = response.header("Content-Type") ?? ""
        if type.hasPrefix("text/html") {
            let html = String(decoding: response.body, as: UTF8.self)
            try FuzzViolation.check(!html.lowercased().contains("<script"), "\(said): a page with <script")
            if let attribute = eventHandler(in: html) { throw FuzzViolation("\(said): a page with an event handler: \(attribute)") }
        }
        if type.hasPrefix("application/json") {
            try FuzzViolation.check(
                (try? JSONSerialization.jsonObject(with: Data(response.body))) != nil, "\(said): JSON that does not parse")
        }
    }

    /// The first tag holding an `on…=` attribute, if any.
    static func eventHandler(in html: String) -> String? {
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            let close = rest[open...].firstIndex(of: ">") ?? rest.endIndex
            let tag = rest[open..<close].lowercased()
            let words = tag.split { " \t\n\r/\"'".contains($0) }
            if words.dropFirst().contains(where: { $0.hasPrefix("on") && $0.contains("=") }) { return String(tag) }
            rest = close < rest.endIndex ? rest[rest.index(after: close)...] : ""
        }
        return nil
    }
}

/// A clock the store's setup moves by hand.
private final class StepClock: WallClock {
    private let milliseconds: Atomic<Int64>
    init(_ time: Timestamp) { milliseconds = Atomic(time.milliseconds) }
    func now() -> Timestamp { Timestamp(milliseconds: milliseconds.load(ordering: .relaxed)) }
    func set(_ time: Timestamp) { milliseconds.store(time.milliseconds, ordering: .relaxed) }
}
