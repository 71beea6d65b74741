internal import CCurl
import Foundation
import ShareLog
import ShareSync
import SharePrimitives

/// The clip's side of the HTTP gateway (docs/HTTP.md): fetches one share
/// link's events with libcurl, as an App Clip fetches its link with
/// URLSession.
///
/// Contract of `fetch(_:from:)`:
/// - One request and one response: `GET` of the URL with
///   `Accept: application/vnd.sharelog.events`. No redirect is followed
///   (a 3xx is an error), no retry is made.
/// - `http` and `https` only; over HTTPS, TLS 1.2 or later, the peer's
///   certificate and host name verified against the system's authorities
///   or `Options.caFile`.
/// - At most `Options.timeout` in all, and `Options.maxBodyBytes` of body.
/// - 200, 404 and 410 in ShareLog's events media type are answers
///   (`GatewayAnswer`); their body must be one sync `records` entry for
///   exactly the name asked, whose events decode and are that share's.
///   Anything else is a `GatewayClientError` that says what to do.
///
/// The store is not touched here: `fetch(_:from:into:)` applies the events.
///
/// A client owns one libcurl easy handle, cleaned up when the client goes;
/// consecutive fetches reuse it (and its connection cache). Not
/// thread-safe: use a client from one thread at a time, or one client per
/// thread.
public final class GatewayClient {
    public let options: Options
    /// The easy handle, from `curl_easy_init`; `curl_easy_cleanup` in deinit.
    private let handle: UnsafeMutableRawPointer

    /// A client; sets libcurl up for the process on first use.
    /// - Throws: `GatewayClientError.setup` when libcurl cannot be set up.
    public init(options: Options = Options()) throws(GatewayClientError) {
        try CurlGlobal.ensure()
        guard let handle = curl_easy_init() else { throw .setup("curl_easy_init returned no handle") }
        self.handle = handle
        self.options = options
    }

    deinit { curl_easy_cleanup(handle) }

    /// Fetches the events of share `name` from `url` (the contract above).
    ///
    /// - Returns: `.live` (200), `.ended` (410) or `.unknown` (404).
    /// - Throws: `GatewayClientError` for every other outcome: the host
    ///   unreachable, a timeout, a TLS failure, another status or media
    ///   type, or a body that is not share `name`'s events.
    public func fetch(_ name: RecordName, from url: GatewayURL) throws(GatewayClientError) -> GatewayAnswer {
        let (status, contentType, body) = try perform(Request(url: url, accept: Representation.eventsMediaType)).parts
        guard [200, 404, 410].contains(status), contentType.map(Self.mediaType) == Representation.eventsMediaType else {
            throw .unexpectedStatus(url: url.text, status: status, contentType: contentType)
        }
        let events = try Self.events(of: name, in: body, from: url)
        switch status {
        case 200:
            guard !events.isEmpty else { throw .notTheShare(url: url.text, name: name, reason: "a live share without events") }
            return .live(events)
        case 410:
            return .ended(events)
        default:
            guard events.isEmpty else { throw .notTheShare(url: url.text, name: name, reason: "an unknown share with \(events.count) events") }
            return .unknown
        }
    }

    /// One `GET` of `url` that takes any media type, as an operator's probe
    /// does (`/metrics`, `/healthz`): its status and body, whatever the
    /// status.
    ///
    /// - Throws: `GatewayClientError` when no answer came (unreachable, a
    ///   timeout, a TLS failure, a body over `maxBodyBytes`).
    public func get(_ url: GatewayURL) throws(GatewayClientError) -> (status: Int, body: [UInt8]) {
        let answer = try perform(Request(url: url, accept: "*/*"))
        let (status, body) = (answer.status, answer.body)
        return (status, body)
    }

    /// The events of `name` in a `records` payload holding exactly its entry.
    private static func events(of name: RecordName, in body: [UInt8], from url: GatewayURL) throws(GatewayClientError) -> [Event] {
        let records: [Message.Record]
        do {
            guard case .records(let decoded) = try Message(Frame(type: .records, payload: body)) else {
                throw GatewayClientError.notTheShare(url: url.text, name: name, reason: "the body is not a records message")
            }
            records = decoded
        } catch let error as GatewayClientError {
            throw error
        } catch {
            throw .notTheShare(url: url.text, name: name, reason: "the body does not decode as a records message: \(error)")
        }
        guard records.count == 1, let record = records.first, record.name == name else {
            throw .notTheShare(url: url.text, name: name, reason: "it holds the records of \(records.map { "\($0.name)" })")
        }
        let events: [Event]
        do { events = try record.events.decoded() } catch {
            throw .notTheShare(url: url.text, name: name, reason: "\(error)")
        }
        if let other = events.lazy.compactMap(\.recordName).first(where: { $0 != name }) {
            throw .notTheShare(url: url.text, name: name, reason: "it holds an event of share \(other)")
        }
        return events
    }

    /// One request of `perform`: `GET` with no body unless `method` and
    /// `body` say otherwise.
    struct Request {
        var url: GatewayURL
        var method = "GET"
        var accept: String
        /// Further header fields, `Name: value`.
        var fields: [String] = []
        /// Sent as the body (with its length) when not nil.
        var body: [UInt8]?
    }

    /// What `perform` got back.
    struct Answer {
        let status: Int
        let contentType: String?
        let body: [UInt8]
        /// `Retry-After` in seconds, when the answer has one.
        let retryAfter: Duration?

        var parts: (status: Int, contentType: String?, body: [UInt8]) { (status, contentType, body) }
    }

    /// One request, and its answer.
    func perform(_ request: Request) throws(GatewayClientError) -> Answer {
        let url = request.url
        curl_easy_reset(handle)
        let body = ResponseBody(limit: options.maxBodyBytes)
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorText.deallocate() }
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for field in ["Accept: \(request.accept)"] + request.fields {
            guard let longer = curl_slist_append(headers, field) else { throw .setup("curl_slist_append returned no list") }
            headers = longer
        }

        try set(CURLOPT_URL, url.text)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 0)
        if let payload = request.body {
            try set(CURLOPT_POSTFIELDSIZE_LARGE, payload.count)
            try set(CURLOPT_COPYPOSTFIELDS, payload)
        } else {
            try set(CURLOPT_HTTPGET, 1)
        }
        if request.method != "GET", request.method != "POST" || request.body == nil { try set(CURLOPT_CUSTOMREQUEST, request.method) }
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_SSLVERSION, sharelog_curl_tls_1_2_or_later())
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = options.caFile { try set(CURLOPT_CAINFO, caFile) }
        try set(CURLOPT_TIMEOUT_MS, Self.milliseconds(options.timeout))
        try set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(min(options.connectTimeout, options.timeout)))
        try set(CURLOPT_USERAGENT, "sharelog-clip")
        try check(sharelog_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeRawPointer(headers)), "CURLOPT_HTTPHEADER")
        try check(sharelog_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeRawPointer(errorText)), "CURLOPT_ERRORBUFFER")
        try check(sharelog_curl_set_pointer(handle, CURLOPT_WRITEDATA, UnsafeRawPointer(Unmanaged.passUnretained(body).toOpaque())), "CURLOPT_WRITEDATA")
        try check(sharelog_curl_set_write_function(handle) { data, size, count, context in
            guard let context else { return 0 }
            let length = size * count
            let piece = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length)
            return Unmanaged<ResponseBody>.fromOpaque(context).takeUnretainedValue().append(piece) ? length : 0
        }, "CURLOPT_WRITEFUNCTION")

        let code = withExtendedLifetime(body) { curl_easy_perform(handle) }
        guard code == CURLE_OK else {
            let detail = errorText.pointee == 0 ? String(cString: curl_easy_strerror(code)) : String(cString: errorText)
            throw failure(code, detail: detail, url: url, overflowed: body.overflowed)
        }
        var status = 0
        try check(sharelog_curl_response_code(handle, &status), "CURLINFO_RESPONSE_CODE")
        var type: UnsafePointer<CChar>?
        try check(sharelog_curl_content_type(handle, &type), "CURLINFO_CONTENT_TYPE")
        return Answer(status: status, contentType: type.map { String(cString: $0) }, body: body.bytes, retryAfter: retryAfter())
    }

    /// The last answer's `Retry-After` in whole seconds (RFC 9110 §10.2.3;
    /// the date form is not read), nil without one.
    private func retryAfter() -> Duration? {
        var field: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, "Retry-After", 0, UInt32(CURLH_HEADER), -1, &field) == CURLHE_OK,
              let value = field?.pointee.value, let seconds = Int64(String(cString: value).trimmingCharacters(in: .whitespaces)), seconds >= 0
        else { return nil }
        return .seconds(seconds)
    }

    /// The error for a transfer that ended with `code`.
    private func failure(_ code: CURLcode, detail: String, url: GatewayURL, overflowed: Bool) -> GatewayClientError {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return .unreachable(url: url.text, reason: detail)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(url: url.text, after: options.timeout)
        case CURLE_SSL_CACERT_BADFILE where options.caFile != nil:
            return .caFile(path: options.caFile ?? "", reason: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_SSL_CRL_BADFILE, CURLE_USE_SSL_FAILED:
            return .tls(url: url.text, reason: detail)
        case CURLE_WRITE_ERROR where overflowed:
            return .responseTooLarge(url: url.text, limit: options.maxBodyBytes)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .invalidURL(url.text, reason: detail)
        default:
            return .transfer(url: url.text, reason: detail)
        }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(GatewayClientError) {
        try check(sharelog_curl_set_long(handle, option, value), "option \(option.rawValue)")
    }

    /// A string option; libcurl copies the string (since 7.17).
    private func set(_ option: CURLoption, _ value: String) throws(GatewayClientError) {
        try check(value.withCString { sharelog_curl_set_pointer(handle, option, $0) }, "option \(option.rawValue)")
    }

    /// A bytes option libcurl copies (`CURLOPT_COPYPOSTFIELDS`, its length
    /// set before).
    private func set(_ option: CURLoption, _ value: [UInt8]) throws(GatewayClientError) {
        try check(value.withUnsafeBytes { sharelog_curl_set_pointer(handle, option, $0.baseAddress) }, "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws(GatewayClientError) {
        guard code == CURLE_OK else { throw .setup("\(what): \(String(cString: curl_easy_strerror(code)))") }
    }

    /// `duration` in milliseconds to wait, at least 1 (0 would mean no limit).
    private static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.millisecondsToWait))
    }

    /// The media type of a `Content-Type` value: lowercased, without
    /// parameters or surrounding spaces.
    private static func mediaType(_ contentType: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let type = contentType.prefix { $0 != ";" }.drop(while: isSpace)
        return String(type.reversed().drop(while: isSpace).reversed()).lowercased()
    }
}
