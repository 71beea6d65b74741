import Foundation
import Testing
import TestSupport
import ShareHTTP
import ShareLog

/// What `TokenAuthenticator` answers for each kind of `Authorization`
/// header, against a real store (issue 32: 401 for missing, malformed,
/// unknown, revoked or expired tokens, 403 for one outside its scope).
@Suite struct TokenAuthenticatorTests {
    /// 2026-12-01T10:00:00Z and the minutes after it.
    static func at(_ minutes: Int64) -> Timestamp { Timestamp(milliseconds: 1_796_119_200_000 + minutes * 60_000) }

    /// A store holding `token` as "uploader" (upload only, expiring at
    /// 11:00) and `reader` as "reader" (read only, never expiring).
    struct Fixture {
        let directory = TemporaryDirectory()
        let store: ShareStore
        let uploader = BearerToken.generate()
        let reader = BearerToken.generate()
        var authenticator: TokenAuthenticator { TokenAuthenticator(store: store) }

        init() throws {
            store = try ShareStore.open(at: directory.appending("store"), creatingIfMissing: true)
            try store.addToken(StoredToken(
                id: uploader.id, name: "uploader", scopes: .upload, createdAt: TokenAuthenticatorTests.at(0),
                expiresAt: TokenAuthenticatorTests.at(60), secretHash: uploader.secretHash))
            try store.addToken(StoredToken(
                id: reader.id, name: "reader", scopes: .read, createdAt: TokenAuthenticatorTests.at(0), expiresAt: nil,
                secretHash: reader.secretHash))
        }

        func answer(_ header: String?, _ scope: TokenScopes = .upload, at minute: Int64 = 1) throws -> TokenAuthentication {
            try authenticator.authenticate(authorization: header, requiring: scope, at: TokenAuthenticatorTests.at(minute))
        }
    }

    @Test func aValidTokenWithItsScopeIsAccepted() throws {
        let fixture = try Fixture()
        guard case .accepted(let token) = try fixture.answer("Bearer \(fixture.uploader.text)") else {
            Issue.record("not accepted")
            return
        }
        #expect(token.name == "uploader")
        // The scheme in any case, more than one space, whitespace around.
        guard case .accepted = try fixture.answer(" bearer   \(fixture.uploader.text)\t") else { Issue.record("not accepted"); return }
        guard case .accepted = try fixture.answer("BEARER \(fixture.reader.text)", .read) else { Issue.record("not accepted"); return }
    }

    @Test func missingMalformedAndUnknownAreToldApart() throws {
        let fixture = try Fixture()
        #expect(try fixture.answer(nil) == .missing)
        #expect(try fixture.answer("  ") == .missing)
        #expect(try fixture.answer("Basic dXNlcjpwYXNz") == .malformed)
        #expect(try fixture.answer("Bearer") == .malformed)
        #expect(try fixture.answer(fixture.uploader.text) == .malformed)
        #expect(try fixture.answer("Bearer \(fixture.uploader.text)x") == .malformed)
        #expect(try fixture.answer("Bearer \(BearerToken.generate().text)") == .unknown)
        // The uploader's id with the reader's secret: unknown, not revoked or expired.
        let forged = "slt_\(fixture.uploader.id)_\(fixture.reader.text.suffix(43))"
        #expect(try fixture.answer("Bearer \(forged)") == .unknown)
    }

    @Test func expiredRevokedAndOutOfScopeNameTheToken() throws {
        let fixture = try Fixture()
        let uploader = try #require(try fixture.store.token(id: fixture.uploader.id))
        #expect(try fixture.answer("Bearer \(fixture.uploader.text)", at: 60) == .expired(uploader))
        #expect(try fixture.answer("Bearer \(fixture.uploader.text)", .read) == .outOfScope(uploader))
        #expect(try fixture.answer("Bearer \(fixture.uploader.text)", [.upload, .revoke]) == .outOfScope(uploader))
        let revoked = try fixture.store.revokeToken(named: "uploader", at: Self.at(2)).token
        #expect(try fixture.answer("Bearer \(fixture.uploader.text)") == .revoked(revoked))
        // With a wrong secret, a revoked token's id is unknown all the same.
        #expect(try fixture.answer("Bearer slt_\(fixture.uploader.id)_\(fixture.reader.text.suffix(43))") == .unknown)
    }
}
