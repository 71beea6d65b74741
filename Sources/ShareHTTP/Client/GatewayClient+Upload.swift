import Foundation
import ShareLog
import SharePrimitives

extension GatewayClient {
    /// Uploads a card to the gateway at `base` (`POST BASE/v1/shares`, docs/HTTP.md
    /// "The write API") as the bearer of `token`, under `idempotencyKey`,
    /// trying again as `policy` says (`UploadRetryPolicy`), with the same
    /// key each time: however many attempts reach the gateway, one share is
    /// made.
    ///
    /// The card goes as `text/vcard` with the default TTL, and as the JSON
    /// form otherwise; a card that is not UTF-8 (which the gateway refuses)
    /// always goes as `text/vcard`, so that no byte of it is altered.
    ///
    /// - Parameter pause: waits between attempts (a test passes its own).
    /// - Returns: the share, as the 201 answer described it.
    /// - Throws: `GatewayClientError.uploadRefused` for an answer not worth
    ///   retrying (the token, the card, the key), `.retriesExhausted` when
    ///   the last attempt failed too, or an error of `GatewayURL` for a bad base.
    public func upload(
        _ upload: ShareUpload, to base: String, token: String, idempotencyKey: String, policy: UploadRetryPolicy = UploadRetryPolicy(),
        pause: (Duration) -> Void = { Thread.sleep(forTimeInterval: Double($0.components.seconds) + Double($0.components.attoseconds) * 1e-18) }
    ) throws(GatewayClientError) -> UploadedShare {
        let url = try GatewayURL(base: base, path: "/v1/shares")
        let (contentType, body) = Self.uploadBody(upload)
        let request = Request(
            url: url, method: "POST", accept: "application/json",
            fields: ["Content-Type: \(contentType)", "Authorization: Bearer \(token)", "Idempotency-Key: \(idempotencyKey)"], body: body)
        var random = SystemRandomNumberGenerator()
        var last = ""
        for attempt in 1...policy.attempts {
            var retryAfter: Duration?
            do throws(GatewayClientError) {
                let answer = try perform(request)
                if answer.status == 201 { return try UploadedShare(answer: answer.body, from: url) }
                let reason = Self.errorReason(answer)
                guard UploadRetryPolicy.retries(status: answer.status) else {
                    throw .uploadRefused(url: url.text, status: answer.status, reason: reason)
                }
                last = "\(answer.status): \(reason)"
                retryAfter = answer.retryAfter
            } catch {
                guard UploadRetryPolicy.retries(error) else { throw error }
                last = "\(error)"
            }
            if attempt < policy.attempts { pause(policy.delay(beforeAttempt: attempt + 1, retryAfter: retryAfter, using: &random)) }
        }
        throw .retriesExhausted(url: url.text, attempts: policy.attempts, last: last)
    }

    /// The body an upload is sent as, and its `Content-Type`.
    private static func uploadBody(_ upload: ShareUpload) -> (String, [UInt8]) {
        guard upload.ttl != ShareStore.defaultTTL, let card = String(validating: upload.vCard, as: UTF8.self) else {
            return ("text/vcard", upload.vCard)
        }
        return ("application/json", Array("{\"vcard\":\(JSONText.quoted(card)),\"ttl\":\(upload.ttl.components.seconds)}".utf8))
    }

    /// The `reason` of a JSON error answer, or its status line's gist.
    private static func errorReason(_ answer: Answer) -> String {
        struct ErrorBody: Decodable { let reason: String }
        return (try? JSONDecoder().decode(ErrorBody.self, from: Data(answer.body)).reason) ?? "no reason given"
    }
}
