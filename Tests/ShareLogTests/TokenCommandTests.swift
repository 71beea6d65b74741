import Foundation
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// `sharelog token create`, `list` and `revoke` as a user runs them
/// (docs/CLI.md): the token is printed once and never again, errors exit
/// 2 or 5 with nothing written, and a revoke by one process is seen by a
/// store instance another process opened before it.
@Suite(.hangDeadline, .ownThread) struct TokenCommandTests {
    static let now = "2026-12-01T10:00:00Z"

    static func newCLI(in directory: TemporaryDirectory) throws -> SharelogCLI {
        let cli = SharelogCLI(store: directory.appending("store"), now: Self.now)
        _ = try cli.run("init").checked("init")
        return cli
    }

    @Test func createPrintsTheTokenOnceAndListNeverShowsItOrItsHash() throws {
        let directory = TemporaryDirectory()
        let cli = try Self.newCLI(in: directory)
        let created = try cli.run("token", "create", "--name", "ios-app", "--json")
        #expect(created.status == 0, "\(created.error)")
        #expect(created.error == "")
        let token = try #require(created.json["token"] as? String)
        #expect(token.count == 64 && token.hasPrefix("slt_"))
        #expect(created.json["name"] as? String == "ios-app")
        #expect(created.json["scopes"] as? [String] == ["upload", "revoke", "read"])
        #expect(created.json["createdAt"] as? String == "2026-12-01T10:00:00.000Z")
        // 90 days after 2026-12-01: 30 of December, 31 of January, 28 of February, then 1 March.
        #expect(created.json["expiresAt"] as? String == "2027-03-01T10:00:00.000Z")

        let secret = String(token.suffix(43))
        let store = try ShareStore.open(at: cli.store)
        let stored = try #require(try store.tokens().first)
        let hash = stored.secretHash.map { String(format: "%02x", $0) }.joined()
        for arguments in [["token", "list"], ["token", "list", "--json"]] {
            let listed = try cli.run(arguments: arguments)
            #expect(listed.status == 0)
            #expect(!listed.text.contains(secret) && !listed.text.contains(hash), "\(arguments)")
        }
        let listed = try cli.run("token", "list", "--json")
        #expect(listed.text == #"[{"createdAt":"2026-12-01T10:00:00.000Z","expiresAt":"2027-03-01T10:00:00.000Z","#
            + #""id":"\#(token.dropFirst(4).prefix(16))","lastUsedAt":null,"name":"ios-app","revoked":false,"revokedAt":null,"#
            + #""scopes":["upload","revoke","read"]}]"# + "\n")
        #expect(try cli.run("token", "list").text
            == "ios-app  scopes upload,revoke,read  created 2026-12-01T10:00:00.000Z  expires 2027-03-01T10:00:00.000Z  last used never  active\n")
    }

    @Test func scopeAndNeverAreKeptAndListedByName() throws {
        let directory = TemporaryDirectory()
        let cli = try Self.newCLI(in: directory)
        let created = try cli.run("token", "create", "--name", "zz-reader", "--scope", "read", "--expires", "never")
        #expect(created.status == 0)
        let lines = created.text.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("token:   slt_"))
        #expect(lines.dropFirst() == ["name:    zz-reader", "scopes:  read", "expires: never",
                                     "This is the only time the token is shown: the store keeps only its hash."])
        #expect(try cli.run("token", "create", "--name", "a.uploader", "--scope", "revoke,upload", "--expires", "12h").status == 0)
        let listed = try #require(try cli.run("token", "list", "--json").jsonArray)
        #expect(listed.map { $0["name"] as? String } == ["a.uploader", "zz-reader"])
        #expect(listed.map { $0["scopes"] as? [String] } == [["upload", "revoke"], ["read"]])
        #expect(listed.map { $0["expiresAt"] as? String } == ["2026-12-01T22:00:00.000Z", nil])
        #expect(listed[1]["expiresAt"] is NSNull)
    }

    @Test(arguments: [
        (["token", "create", "--name", "bad name"], 5, "--name 'bad name' is not 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'"),
        (["token", "create", "--name", String(repeating: "x", count: 65)], 5,
         "--name '\(String(repeating: "x", count: 65))' is not 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'"),
        (["token", "create", "--name", "x", "--scope", "upload,write"], 5,
         "--scope 'upload,write' is not a comma-separated list of upload, revoke and read, each at most once"),
        (["token", "create", "--name", "x", "--expires", "90"], 5, "--expires '90' is not a duration like 90m, 12h or 7d"),
        (["token", "create", "--name", "x", "--expires", "0d"], 5, "--expires '0d' is not a duration after now, like 30d, or never"),
        (["token", "create", "--name", "taken"], 5,
         "a token named 'taken' already exists (revoked tokens keep their names), so nothing was written; choose another name"),
        (["token", "revoke", "nobody"], 5, "no token named 'nobody' in this store, so nothing was written; 'sharelog token list' shows the names"),
        (["token", "create"], 2, "token create needs --name NAME; see 'sharelog help'"),
        (["token", "revoke"], 2, "missing token name; see 'sharelog help'"),
        (["token", "create", "--name", "x", "--ttl", "1d"], 2, "--ttl is not an option of 'token create'; see 'sharelog help'"),
        (["token"], 2, "missing token subcommand (create, list, revoke or import); see 'sharelog help'"),
    ] as [([String], Int32, String)])
    func aRefusedCommandSaysWhyAndWritesNothing(_ arguments: [String], status: Int32, message: String) throws {
        let directory = TemporaryDirectory()
        let cli = try Self.newCLI(in: directory)
        _ = try cli.run("token", "create", "--name", "taken").checked("token create")
        let before = try StoreFiles(of: cli.store)
        let result = try cli.run(arguments: arguments)
        #expect(result.status == status)
        #expect(result.error == "sharelog: \(message)\n")
        #expect(result.text == "")
        #expect(try StoreFiles(of: cli.store) == before)
    }

    @Test func revokeSaysWhenAndASecondRevokeKeepsTheFirstTime() throws {
        let directory = TemporaryDirectory()
        let cli = try Self.newCLI(in: directory)
        _ = try cli.run("token", "create", "--name", "ios-app").checked("token create")
        let first = try SharelogCLI(store: cli.store, now: "2026-12-01T11:00:00Z").run("token", "revoke", "ios-app")
        #expect(first.status == 0)
        #expect(first.text == "revoked token ios-app at 2026-12-01T11:00:00.000Z\n")
        let second = try SharelogCLI(store: cli.store, now: "2026-12-01T12:00:00Z").run("token", "revoke", "ios-app", "--json")
        #expect(second.status == 0)
        #expect(second.text == #"{"alreadyRevoked":true,"name":"ios-app","revokedAt":"2026-12-01T11:00:00.000Z"}"# + "\n")
        #expect(try cli.run("token", "list").text.hasSuffix("  revoked 2026-12-01T11:00:00.000Z\n"))
    }

    /// The store instance stands for a gateway that opened the store before
    /// the revoke and keeps it open: it sees the revoke at its next lookup.
    @Test func aRevokeByAnotherProcessIsSeenByAStoreOpenedBefore() throws {
        let directory = TemporaryDirectory()
        let cli = try Self.newCLI(in: directory)
        let created = try cli.run("token", "create", "--name", "ios-app", "--json").checked("token create")
        let token = try #require(created.json["token"] as? String)
        let id = try #require(TokenID(hex: token.dropFirst(4).prefix(16)))
        let gateway = try ShareStore.open(at: cli.store)
        #expect(try gateway.token(id: id)?.revokedAt == nil)
        #expect(try SharelogCLI(store: cli.store, now: "2026-12-01T10:05:00Z").run("token", "revoke", "ios-app").status == 0)
        #expect(try gateway.token(id: id)?.revokedAt == Timestamp(iso8601: "2026-12-01T10:05:00Z"))
    }
}
