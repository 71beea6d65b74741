import Foundation
@testable import ShareHTTP
import ShareLog
import Testing
import TestSupport
import TestTraits

/// The write API in process, for what a socket cannot time: the header
/// alone decides whether a body is read, and a key whose first upload is
/// still running gets 409 (docs/HTTP.md "Exactly once").
@Suite(.hangDeadline) struct WriteAPITests {
    static let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Upload Person\r\nEND:VCARD\r\n".utf8)

    /// A gateway with the write API on a new store, and a token of it.
    static func gateway(in directory: TemporaryDirectory) throws -> (Gateway, WriteAPI, BearerToken, StoredToken) {
        let store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true)
        let token = BearerToken.generate()
        let stored = StoredToken(
            id: token.id, name: "ios-app", scopes: .all, createdAt: Timestamp(milliseconds: 0), expiresAt: nil, secretHash: token.secretHash)
        try store.addToken(stored)
        let api = WriteAPI(store: store, limit: nil)
        return (Gateway(source: store, configuration: GatewayConfiguration(), writeAPI: api), api, token, stored)
    }

    static func upload(_ token: BearerToken?, key: String? = "k1", body: [UInt8] = card) -> GatewayRequest {
        GatewayRequest(
            method: "POST", target: "/v1/shares", contentType: "text/vcard", authorization: token.map { "Bearer \($0.text)" },
            idempotencyKey: key, body: body)
    }

    @Test func onlyAnUploadWithAnAcceptedTokenHasItsBodyRead() throws {
        let directory = TemporaryDirectory()
        let (gateway, _, token, _) = try Self.gateway(in: directory)
        #expect(gateway.bodyLimit(for: Self.upload(token)) == 1_048_576 + 65_536)
        #expect(gateway.bodyLimit(for: Self.upload(nil)) == nil, "no token: answered from the header")
        #expect(gateway.bodyLimit(for: Self.upload(BearerToken.generate())) == nil, "an unknown token: the same")
        var elsewhere = Self.upload(token)
        elsewhere.target = "/appclip"
        #expect(gateway.bodyLimit(for: elsewhere) == nil)
        #expect(Gateway(source: try ShareStore.open(at: directory.appending("store")), configuration: GatewayConfiguration())
            .bodyLimit(for: Self.upload(token)) == nil, "no write API: no body")
    }

    @Test func aKeyWhoseFirstUploadIsStillRunningGets409() throws {
        let directory = TemporaryDirectory()
        let (gateway, api, token, stored) = try Self.gateway(in: directory)
        let claim = UploadIdentity.claim(key: "k1", upload: ShareUpload(vCard: Self.card), token: stored)
        #expect(api.inFlight.begin(claim.token.bytes + claim.keyHash), "the first attempt, still running")
        let second = gateway.respond(to: Self.upload(token))
        #expect(second.status.code == 409)
        api.inFlight.end(claim.token.bytes + claim.keyHash)
        #expect(gateway.respond(to: Self.upload(token)).status.code == 201, "once it has answered, the key is free")
        #expect(gateway.respond(to: Self.upload(token, key: "k2")).status.code == 201, "other keys never wait")
    }

    @Test func aRetryNamesTheSameShareAndAnotherTokensKeyAnother() throws {
        let directory = TemporaryDirectory()
        let (_, _, _, stored) = try Self.gateway(in: directory)
        let upload = ShareUpload(vCard: Self.card)
        let first = UploadIdentity.claim(key: "k1", upload: upload, token: stored)
        #expect(UploadIdentity.claim(key: "k1", upload: upload, token: stored) == first)
        let other = StoredToken(
            id: TokenID(bytes: [UInt8](repeating: 1, count: 8))!, name: "other", scopes: .all, createdAt: Timestamp(milliseconds: 0),
            expiresAt: nil, secretHash: [UInt8](repeating: 1, count: 32))
        #expect(UploadIdentity.claim(key: "k1", upload: upload, token: other).recordName != first.recordName)
        let text = first.recordName.description
        #expect(Array(text)[14] == "4", "a version 4 UUID: \(text)")
        #expect("89ab".contains(Array(text)[19]), "RFC 9562's variant: \(text)")
        // The same card and TTL sent as JSON is the same request.
        #expect(UploadIdentity.claim(key: "k1", upload: ShareUpload(vCard: Self.card, ttl: ShareStore.defaultTTL), token: stored) == first)
        #expect(UploadIdentity.claim(key: "k1", upload: ShareUpload(vCard: Self.card, ttl: .seconds(60)), token: stored).fingerprint != first.fingerprint)
        let otherCard = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Other Person\r\nEND:VCARD\r\n".utf8)
        #expect(UploadIdentity.claim(key: "k1", upload: ShareUpload(vCard: otherCard), token: stored).fingerprint != first.fingerprint)
    }

    @Test func idempotencyKeysAreStringsOrTokensOfVisibleASCII() {
        #expect(UploadIdentity.key(in: "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"") == "8e03978e-40d5-43e8-bc93-6894a57f9324")
        #expect(UploadIdentity.key(in: " abc ") == "abc")
        for bad in [nil, "", "\"\"", "a b", "caf\u{e9}", String(repeating: "k", count: 256), "\"a\"b\""] as [String?] {
            #expect(UploadIdentity.key(in: bad) == nil, "\(String(describing: bad))")
        }
    }
}
