import Foundation
import ShareClip
import ShareLog
import SharePrimitives

/// The main app's side of the gateway (docs/HTTP.md "The write API"):
/// `POST /v1/shares` uploads a card, `DELETE /v1/shares/ID` revokes a
/// share, `GET /v1/shares/ID` shows its owner how it stands, each with a
/// bearer token of the store (`TokenAuthenticator`) whose scope allows it.
///
/// - Every answer is JSON, errors as `{"serverErrorCode":…,"reason":…}`,
///   none quoting a card, all `no-store`.
/// - An upload needs an `Idempotency-Key` and is made once per key and
///   token (`ShareStore.create(vCard:ttl:claim:)`); a second request with
///   a key whose first is still running here gets 409.
/// - Each token has its own rate limit (429 with `Retry-After`).
/// - Credentials are checked from the header alone (`bodyLimit`), so the
///   body of a request that will be refused is never read.
///
/// Thread-safe; a write blocks the connection's thread for one durable
/// commit.
public final class WriteAPI: Sendable {
    public let store: ShareStore
    let authenticator: TokenAuthenticator
    let limiter: RateLimiter?
    let limitClock: any WallClock
    let inFlight = InFlightUploads()

    /// The collection's path; a share's is this, `/` and its record name.
    public static let path = "/v1/shares"

    /// - Parameters:
    ///   - limit: each token's rate limit; nil for none.
    ///   - limitClock: the time the limit counts in.
    public init(store: ShareStore, limit: RateLimit? = .writes, limitClock: any WallClock = MonotonicClock()) {
        self.store = store
        authenticator = TokenAuthenticator(store: store)
        limiter = limit.map { RateLimiter($0) }
        self.limitClock = limitClock
    }

    /// Whether `path` is the write API's.
    static func serves(_ path: Substring) -> Bool { path == Self.path || path.hasPrefix(Self.path + "/") }

    /// The body limit of an upload whose token is accepted; nil otherwise.
    func bodyLimit(for request: GatewayRequest, path: Substring, at now: Timestamp) -> Int? {
        guard request.method == "POST", path == Self.path,
              case .accepted = try? authenticator.authenticate(authorization: request.authorization, requiring: .upload, at: now)
        else { return nil }
        return ShareUpload.bodyLimit
    }

    /// The answer to a request for `path` (one `serves` took).
    func respond(to request: GatewayRequest, path: Substring, at now: Timestamp) -> GatewayResponse {
        let name = path.dropFirst(Self.path.count + 1)
        switch (request.method, name.isEmpty) {
        case ("POST", true): return authenticated(request, .upload, "upload", at: now) { token in upload(request, token) }
        case ("DELETE", false): return authenticated(request, .revoke, "revoke", at: now) { token in revoke(String(name), token) }
        case ("GET", false), ("HEAD", false): return authenticated(request, .read, "read", at: now) { token in show(String(name), token, at: now) }
        default:
            var answer = Self.error(.methodNotAllowed, "METHOD_NOT_ALLOWED", "\(request.method) is not allowed here", action: "-", token: nil)
            answer.headers.append(HTTPHeader("Allow", name.isEmpty ? "POST" : "GET, HEAD, DELETE"))
            return answer
        }
    }

    /// Runs `body` for a request whose token is accepted for `scope` and
    /// within its rate limit; the 401, 403 or 429 otherwise.
    private func authenticated(
        _ request: GatewayRequest, _ scope: TokenScopes, _ action: String, at now: Timestamp, _ body: (StoredToken) -> GatewayResponse
    ) -> GatewayResponse {
        let outcome: TokenAuthentication
        do { outcome = try authenticator.authenticate(authorization: request.authorization, requiring: scope, at: now) } catch {
            return Self.internalError(error, action: action, token: nil)
        }
        switch outcome {
        case .accepted(let token):
            if let wait = limiter?.take(UInt64(bytes: token.id.bytes), at: limitClock.now()) {
                var answer = Self.error(.tooManyRequests, "THROTTLED", "this token's rate limit is reached", action: action, token: token.name)
                answer.headers.append(HTTPHeader("Retry-After", "\(max(1, wait.components.seconds + (wait.components.attoseconds > 0 ? 1 : 0)))"))
                return answer
            }
            return body(token)
        case .outOfScope(let token):
            return Self.error(.forbidden, "FORBIDDEN", "token \(token.name) has no \(action) scope", action: action, token: token.name)
        case .missing, .malformed, .unknown, .revoked, .expired:
            var answer = Self.error(.unauthorized, "AUTHENTICATION_REQUIRED", Self.reason(outcome), action: action, token: nil)
            answer.headers.append(HTTPHeader("WWW-Authenticate", "Bearer"))
            return answer
        }
    }

    /// `POST /v1/shares`.
    private func upload(_ request: GatewayRequest, _ token: StoredToken) -> GatewayResponse {
        func refuse(_ status: HTTPStatus, _ code: String, _ reason: String) -> GatewayResponse {
            Self.error(status, code, reason, action: "upload", token: token.name)
        }
        guard let key = UploadIdentity.key(in: request.idempotencyKey) else {
            return refuse(.badRequest, "BAD_REQUEST", "an upload needs an Idempotency-Key of 1 to 255 visible ASCII characters")
        }
        if request.bodyOverLimit { return refuse(.contentTooLarge, "TOO_LARGE", "the body is over \(ShareUpload.bodyLimit) bytes") }
        let upload: ShareUpload
        do { upload = try ShareUpload.parse(contentType: request.contentType, body: request.body) } catch {
            switch error {
            case .unsupportedMediaType, .unsupportedCharset: return refuse(.unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", error.description)
            case .malformedJSON: return refuse(.badRequest, "BAD_REQUEST", error.description)
            }
        }
        let claim = UploadIdentity.claim(key: key, upload: upload, token: token)
        let running = claim.token.bytes + claim.keyHash
        guard inFlight.begin(running) else {
            return refuse(.conflict, "CONFLICT", "an upload with this Idempotency-Key is still running; retry it once it has answered")
        }
        defer { inFlight.end(running) }
        let outcome: UploadOutcome
        do { outcome = try store.create(vCard: upload.vCard, ttl: upload.ttl, claim: claim) } catch {
            switch error {
            case .invalidVCard(.tooLarge): return refuse(.contentTooLarge, "TOO_LARGE", "\(error)")
            case .invalidVCard, .invalidTTL: return refuse(.unprocessableContent, "INVALID_CARD", "\(error)")
            default: return Self.internalError(error, action: "upload", token: token.name)
            }
        }
        switch outcome {
        case .created(let share):
            return Self.json(.created, WriteRecord.receipt(share), share.recordName, action: "upload", outcome: "created", token: token.name,
                             extra: [HTTPHeader("Location", "\(Self.path)/\(share.recordName)")])
        case .replayed(let share):
            return Self.json(.created, WriteRecord.receipt(share), share.recordName, action: "upload", outcome: "replayed", token: token.name,
                             extra: [HTTPHeader("Location", "\(Self.path)/\(share.recordName)"), HTTPHeader("Idempotent-Replayed", "true")])
        case .keyReused:
            return refuse(.unprocessableContent, "IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used for another request")
        }
    }

    /// `DELETE /v1/shares/ID`, at the store's time. A token with the
    /// `revoke` scope revokes any share of the store: a store has one
    /// owner, the app its tokens were made for.
    private func revoke(_ text: String, _ token: StoredToken) -> GatewayResponse {
        guard let name = Self.recordName(text) else { return Self.badName(action: "revoke", token: token.name) }
        do {
            try store.revoke(name)
            var answer = GatewayResponse(status: .noContent, route: .shares, recordName: name)
            answer.audit = (token.name, "revoke", "revoked")
            return answer
        } catch {
            switch error {
            case .notFound: return Self.error(.notFound, "NOT_FOUND", "no share has this record name", action: "revoke", token: token.name, name)
            case .expired(_, let at, let reason):
                return Self.json(.gone, WriteRecord.ended(name, at: at, reason: reason), name, action: "revoke", outcome: "ended", token: token.name)
            default: return Self.internalError(error, action: "revoke", token: token.name)
            }
        }
    }

    /// `GET /v1/shares/ID`: the owner's view, which still answers once the
    /// share has ended.
    private func show(_ text: String, _ token: StoredToken, at now: Timestamp) -> GatewayResponse {
        guard let name = Self.recordName(text) else { return Self.badName(action: "read", token: token.name) }
        do {
            guard let receipt = try store.receipt(of: name) else {
                return Self.error(.notFound, "NOT_FOUND", "no share has this record name", action: "read", token: token.name, name)
            }
            let ended: (at: Timestamp, reason: ExpiryReason)?
            switch try store.fetch(name, at: now) {
            case .live: ended = nil
            case .expired(let at, let reason): ended = (at, reason)
            case .notFound: ended = (receipt.expiresAt, .ttl)
            }
            return Self.json(.ok, WriteRecord.status(receipt, ended: ended), name, action: "read", outcome: ended == nil ? "live" : "ended", token: token.name)
        } catch {
            return Self.internalError(error, action: "read", token: token.name)
        }
    }

    /// The record name in a path segment: a lowercase or uppercase UUID.
    private static func recordName(_ text: String) -> RecordName? {
        UUID(uuidString: text).map(RecordName.init(uuid:))
    }

    private static func badName(action: String, token: String) -> GatewayResponse {
        error(.badRequest, "BAD_REQUEST", "the path does not end in a record name (a UUID)", action: action, token: token)
    }

    /// Why a request got 401, in words a developer can act on.
    private static func reason(_ outcome: TokenAuthentication) -> String {
        switch outcome {
        case .missing: "this request needs Authorization: Bearer and a token (sharelog token create)"
        case .malformed: "the Authorization header is not Bearer and a ShareLog token"
        case .revoked: "the token was revoked"
        case .expired: "the token has expired"
        default: "the token is not known here"
        }
    }

    private static func json(
        _ status: HTTPStatus, _ body: [UInt8], _ name: RecordName?, action: String, outcome: String, token: String?, extra: [HTTPHeader] = []
    ) -> GatewayResponse {
        var answer = GatewayResponse(
            // The gateway adds no-store to every 4xx itself.
            status: status, headers: [HTTPHeader("Content-Type", Representation.json.contentType)] + (status.isClientError ? [] : CachePolicy.noStore)
                + extra, body: body,
            route: .shares, recordName: name)
        answer.audit = (token, action, outcome)
        return answer
    }

    static func error(
        _ status: HTTPStatus, _ code: String, _ reason: String, action: String, token: String?, _ name: RecordName? = nil
    ) -> GatewayResponse {
        json(status, CardRecord.error(code: code, reason: reason), name, action: action, outcome: code.lowercased(), token: token)
    }

    private static func internalError(_ error: any Error, action: String, token: String?) -> GatewayResponse {
        var answer = Self.error(.internalError, "INTERNAL_ERROR", "the store could not answer; try again", action: action, token: token)
        answer.failure = "\(error)"
        return answer
    }
}

extension UInt64 {
    /// The first 8 of `bytes`, big-endian: a token id as a limiter's key.
    init(bytes: [UInt8]) { self = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }
}
