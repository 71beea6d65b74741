import ShareClip
import ShareLog
import ShareSync

extension Gateway {
    /// `GET`/`HEAD /appclip?id=…`: the share, in the form `Accept` asks for
    /// (or the `.vcf` with `format=vcf`), under the per-address limits.
    ///
    /// Every request takes from the far stricter miss allowance too, before
    /// any lookup, and gets it back unless it was a miss (400, 404, 410):
    /// so requests in flight at once cannot overrun it, and while it is
    /// empty, every share request from the address gets 429. An unknown
    /// name and an ended share cost the same: one fetch (and for the events
    /// form one events read), and a rendered notice.
    func share(_ request: GatewayRequest, at now: Timestamp) -> GatewayResponse {
        let client = clientKey(of: request), limitNow = limitClock.now()
        let query = request.target.drop { $0 != "?" }.dropFirst()
        let download = query.split(separator: "&").contains("format=vcf")
        let negotiated = download ? .vCard : AcceptHeader.negotiate(request.accept)
        var response: GatewayResponse
        if let wait = missLimiter?.take(client, at: limitNow) {
            response = tooManyRequests(wait, route: .share, as: negotiated ?? .page)
        } else if let wait = requestLimiter?.take(client, at: limitNow) {
            missLimiter?.refund(client)
            response = tooManyRequests(wait, route: .share, as: negotiated ?? .page)
        } else if let representation = negotiated {
            response = answer(request, as: representation, at: now)
            if ![HTTPStatus.badRequest, .notFound, .gone].contains(response.status) { missLimiter?.refund(client) }
        } else {
            missLimiter?.refund(client)
            response = notice(
                .notAcceptable, route: .share, "Not acceptable",
                "This card is available as text/html, text/vcard, application/json and \(Representation.eventsMediaType).")
        }
        response.headers.append(HTTPHeader("Vary", "Accept"))
        return response
    }

    private func answer(_ request: GatewayRequest, as representation: Representation, at now: Timestamp) -> GatewayResponse {
        let name: RecordName
        do {
            guard case .share(let uuid) = try AppClipLinkParser.parse(target: request.target) else {
                return error(.badRequest, route: .share, as: representation, code: "BAD_REQUEST", "Damaged link", "This is not a card link.")
            }
            name = RecordName(uuid: uuid)
        } catch {
            return self.error(.badRequest, route: .share, as: representation, code: "BAD_REQUEST", "Damaged link", "This card link is damaged: \(error.description).")
        }
        var response: GatewayResponse
        do {
            switch try source.fetch(name, at: now) {
            case .live(let share):
                response = try live(share, as: representation, ifNoneMatch: request.ifNoneMatch, at: now)
            case .expired(let at, let reason):
                response = try ended(name, at: at, reason: reason, as: representation, now: now)
            case .notFound:
                response = try unknown(name, as: representation, now: now)
            }
        } catch {
            response = self.error(.internalError, route: .share, as: representation, code: "INTERNAL_ERROR", "Server trouble", "This server cannot read its store right now. Try again later.")
            response.failure = "\(error)"
        }
        response.recordName = name
        return response
    }

    /// A live share: 200 with the body, or 304 when `If-None-Match` names
    /// its tag. A 304 holds the 200's body too: the server sends only its
    /// length (RFC 9110 §8.6 allows no other `Content-Length`), as for `HEAD`.
    private func live(_ share: Share, as representation: Representation, ifNoneMatch: String?, at now: Timestamp) throws -> GatewayResponse {
        let tag = EntityTag(representation, of: share, settings: settingsFingerprint)
        let fields = [HTTPHeader("ETag", tag.description)] + configuration.cache.fields(expiresAt: share.expiresAt, now: now)
        var headers = [HTTPHeader("Content-Type", representation.contentType)] + fields
        let body: [UInt8]
        switch representation {
        case .page:
            let preview = try? VCardPreview(parsing: share.vCard)
            headers.append(HTTPHeader("Content-Security-Policy", PageStyle.contentSecurityPolicy))
            body = CardPage.render(share, preview: preview, downloadPath: "/appclip?id=\(share.recordName)&format=vcf", settings: settings)
        case .vCard:
            let name = (try? VCardPreview(parsing: share.vCard, includingPhoto: false))?.name
            headers.append(HTTPHeader("Content-Disposition", VCardFilename.contentDisposition(name: name)))
            body = share.vCard
        case .json:
            body = CardRecord.live(share)
        case .events:
            body = try eventsBody(share.recordName, at: now)
        }
        if let ifNoneMatch, tag.matches(ifNoneMatch: ifNoneMatch) {
            return GatewayResponse(status: .notModified, headers: fields, body: body, route: .share)
        }
        return GatewayResponse(status: .ok, headers: headers, body: body, route: .share)
    }

    private func ended(_ name: RecordName, at: Timestamp, reason: ExpiryReason, as representation: Representation, now: Timestamp) throws -> GatewayResponse {
        let when = HTTPDate.readable(at)
        let sentence = reason == .revoked
            ? "The person who shared this card withdrew it on \(when)."
            : "This card was shared for a limited time, which ended on \(when)."
        switch representation {
        case .json:
            return GatewayResponse(
                status: .gone, headers: [HTTPHeader("Content-Type", Representation.json.contentType)],
                body: CardRecord.error(name, code: "EXPIRED", reason: sentence, ended: (at, reason)), route: .share)
        case .events:
            return GatewayResponse(
                status: .gone, headers: [HTTPHeader("Content-Type", Representation.events.contentType)],
                body: try eventsBody(name, at: now), route: .share)
        case .page, .vCard:
            return error(.gone, route: .share, as: representation, code: "EXPIRED", "This card has expired", sentence)
        }
    }

    private func unknown(_ name: RecordName, as representation: Representation, now: Timestamp) throws -> GatewayResponse {
        let sentence = "There is no card at this link. Check that the whole link was copied."
        switch representation {
        case .json:
            return GatewayResponse(
                status: .notFound, headers: [HTTPHeader("Content-Type", Representation.json.contentType)],
                body: CardRecord.error(name, code: "NOT_FOUND", reason: sentence), route: .share)
        case .events:
            return GatewayResponse(
                status: .notFound, headers: [HTTPHeader("Content-Type", Representation.events.contentType)],
                body: try eventsBody(name, at: now), route: .share)
        case .page, .vCard:
            return error(.notFound, route: .share, as: representation, code: "NOT_FOUND", "No card here", sentence)
        }
    }

    /// The events a clip applies, as one entry of a sync `records`
    /// message (docs/SYNC.md "Messages"): no events for an unknown name.
    private func eventsBody(_ name: RecordName, at now: Timestamp) throws -> [UInt8] {
        let events = EncodedEvents(try source.events(of: name, at: now))
        return Message.records([Message.Record(name: name, events: events)]).frame.payload
    }
}
