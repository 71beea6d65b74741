import Foundation
import ShareHTTP
import ShareLog
import Testing
import TestSupport
import TestTraits

/// `sharelog token import` as an operator runs it (docs/CLI.md "token
/// import"): a token made on replica A, installed on replica B, is the
/// same token there (it authenticates, and an upload under the same
/// `Idempotency-Key` names the same share, docs/HTTP.md "Exactly once");
/// every refusal says why without quoting the secret and writes nothing;
/// installing it again changes nothing.
@Suite(.hangDeadline, .ownThread) struct TokenImportTests {
    /// Replica A's time when it makes tokens, and replica B's when it installs them.
    static let madeAt = "2026-12-01T10:00:00Z"
    static let installedAt = "2026-12-02T08:00:00Z"
    /// Both gateways' time: the tokens are live on both.
    static let servedAt = Timestamp(iso8601: "2026-12-02T09:00:00Z")!
    static let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Upload Person\r\nEND:VCARD\r\n".utf8)
    static let form = "a token is slt_, 16 lowercase hex digits, _ and 43 base64url characters, as 'sharelog token create' printed it"

    /// Two replicas' stores, A and B, in one directory; the token files are
    /// written there too.
    struct Replicas {
        let directory = TemporaryDirectory()
        let a: SharelogCLI
        let b: SharelogCLI

        init() throws {
            a = SharelogCLI(store: directory.appending("a"), now: TokenImportTests.madeAt)
            b = SharelogCLI(store: directory.appending("b"), now: TokenImportTests.installedAt)
            _ = try a.run("init").checked("init a")
            _ = try b.run("init").checked("init b")
        }

        /// Makes a token named `name` on A and writes what `token create`
        /// printed to `name.token`, as `token create > name.token` does.
        /// Returns the token's text, read from the output's `token:` line.
        @discardableResult
        func create(_ name: String) throws -> String {
            let created = try a.run("token", "create", "--name", name).checked("token create \(name)")
            try write(created.text, to: "\(name).token")
            let line = try #require(created.text.split(separator: "\n").first { $0.hasPrefix("token:   ") })
            return String(line.dropFirst("token:   ".count))
        }

        func path(_ file: String) -> String { directory.appending(file) }

        func write(_ text: String, to file: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path(file)))
        }
    }

    /// The gateway of the store at `path`, with the write API, at `servedAt`.
    static func gateway(_ path: String) throws -> Gateway {
        var options = ShareStore.Options()
        options.clock = FixedClock(servedAt)
        let store = try ShareStore.open(at: path, options: options)
        return Gateway(
            source: store, configuration: GatewayConfiguration(), clock: FixedClock(servedAt), writeAPI: WriteAPI(store: store, limit: nil))
    }

    /// `POST /v1/shares` of `card` with `token` under `key`: the status and the share's record name.
    static func upload(to gateway: Gateway, token: String, key: String) throws -> (status: Int, recordName: String?) {
        let response = gateway.respond(to: GatewayRequest(
            method: "POST", target: "/v1/shares", contentType: "text/vcard", authorization: "Bearer \(token)", idempotencyKey: key, body: card))
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (Int(response.status.code), body?["recordName"] as? String)
    }

    @Test func aTokenImportedFromAnotherReplicaAuthenticatesThereAndARetryNamesTheSameShare() throws {
        let replicas = try Replicas()
        let token = try replicas.create("ios-app")
        let a = try Self.gateway(replicas.a.store)
        #expect(try Self.upload(to: Self.gateway(replicas.b.store), token: token, key: "before").status == 401, "B does not know it yet")

        let imported = try replicas.b.run("token", "import", "--name", "ios-app", "--token-file", replicas.path("ios-app.token"))
        #expect(imported.status == 0, "\(imported.error)")
        // 90 days after 2026-12-02T08:00: 2 January, 2 February, then 28 days of February to 2 March.
        #expect(imported.text == "installed token ios-app: scopes upload,revoke,read, expires 2027-03-02T08:00:00.000Z\n")
        #expect(imported.error == "")
        #expect(!imported.text.contains(token.suffix(43)))

        let b = try Self.gateway(replicas.b.store)
        for store in [replicas.a.store, replicas.b.store] {
            let answer = try TokenAuthenticator(store: try ShareStore.open(at: store))
                .authenticate(authorization: "Bearer \(token)", requiring: .all, at: Self.servedAt)
            guard case .accepted(let stored) = answer else {
                Issue.record("\(store): \(answer)")
                continue
            }
            #expect(stored.name == "ios-app" && "\(stored.id)" == String(token.dropFirst(4).prefix(16)))
        }
        // The first attempt reached A; its retry, under the same key, reached B.
        let first = try Self.upload(to: a, token: token, key: "9f1c-retry")
        let retry = try Self.upload(to: b, token: token, key: "9f1c-retry")
        #expect(first.status == 201 && retry.status == 201)
        let name = try #require(first.recordName)
        #expect(retry.recordName == name, "the same key names the same share on both replicas")
        let other = try Self.upload(to: b, token: token, key: "another-key")
        #expect(other.status == 201 && other.recordName != nil && other.recordName != name)

        let listed = try #require(try replicas.b.run("token", "list", "--json").jsonArray)
        #expect(listed.count == 1)
        #expect(listed.first?["id"] as? String == String(token.dropFirst(4).prefix(16)))
        #expect(listed.first?["createdAt"] as? String == "2026-12-02T08:00:00.000Z", "installed here then")
    }

    /// The file may hold the text alone, or what `token create` printed
    /// as text or JSON; `-` reads standard input. `--json` never holds the token.
    @Test func theFileMayHoldTheTokenAloneOrWhatTokenCreatePrinted() throws {
        let replicas = try Replicas()
        let token = try replicas.create("ios-app")
        let json = try replicas.a.run("token", "create", "--name", "tool", "--json").checked("token create --json")
        let jsonToken = try #require(json.json["token"] as? String)
        try replicas.write(json.text, to: "tool.json")
        try replicas.write(token + "\n", to: "bare.token")
        try replicas.write(token, to: "no-newline.token")
        let forms: [(file: String, token: String, input: String)] = [
            ("ios-app.token", token, ""), ("tool.json", jsonToken, ""), ("bare.token", token, ""), ("no-newline.token", token, ""),
            ("-", token, token + "\n"),
        ]
        for (index, form) in forms.enumerated() {
            let cli = SharelogCLI(store: replicas.directory.appending("b\(index)"), now: Self.installedAt)
            _ = try cli.run("init").checked("init")
            let result = try cli.run(
                "token", "import", "--name", "app", "--token-file", form.file == "-" ? "-" : replicas.path(form.file),
                "--scope", "upload,read", "--expires", "never", "--json", input: Array(form.input.utf8))
            #expect(result.status == 0, "\(form.file): \(result.error)")
            #expect(result.text == #"{"alreadyInstalled":false,"createdAt":"2026-12-02T08:00:00.000Z","expiresAt":null,"#
                + #""name":"app","scopes":["upload","read"]}"# + "\n", "\(form.file)")
            let answer = try TokenAuthenticator(store: try ShareStore.open(at: cli.store))
                .authenticate(authorization: "Bearer \(form.token)", requiring: [.upload, .read], at: Self.servedAt)
            guard case .accepted = answer else {
                Issue.record("\(form.file): \(answer)")
                continue
            }
        }
    }

    /// A deployment script may run the same import on every deploy.
    @Test func importingTheSameTokenAgainChangesNothing() throws {
        let replicas = try Replicas()
        try replicas.create("ios-app")
        let arguments = ["token", "import", "--name", "ios-app", "--token-file", replicas.path("ios-app.token")]
        _ = try replicas.b.run(arguments: arguments).checked("token import")
        let before = try StoreFiles(of: replicas.b.store)
        let later = SharelogCLI(store: replicas.b.store, now: "2026-12-20T08:00:00Z")
        let again = try later.run(arguments: arguments + ["--scope", "read"])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.text == "token ios-app was already installed (scopes upload,revoke,read, expires 2027-03-02T08:00:00.000Z); nothing was written\n")
        let json = try later.run(arguments: arguments + ["--json"])
        #expect(json.status == 0)
        #expect(json.text == #"{"alreadyInstalled":true,"createdAt":"2026-12-02T08:00:00.000Z","expiresAt":"2027-03-02T08:00:00.000Z","#
            + #""name":"ios-app","scopes":["upload","revoke","read"]}"# + "\n")
        #expect(try StoreFiles(of: replicas.b.store) == before)
        #expect(try later.run("token", "list", "--json").jsonArray?.count == 1)
    }

    /// Each refusal: its exit code and message, nothing printed on standard
    /// output, no secret in the message, and the store's files as they were.
    @Test func aRefusedImportSaysWhyQuotesNoSecretAndWritesNothing() throws {
        let replicas = try Replicas()
        let token = try replicas.create("ios-app")
        let retired = try replicas.create("retired")
        let brief = try replicas.create("brief")
        let fresh = try replicas.create("fresh")
        let b = replicas.b
        for name in ["ios-app", "retired"] {
            _ = try b.run("token", "import", "--name", name, "--token-file", replicas.path("\(name).token")).checked("token import \(name)")
        }
        _ = try SharelogCLI(store: b.store, now: "2026-12-02T09:00:00Z").run("token", "revoke", "retired").checked("token revoke retired")
        _ = try SharelogCLI(store: b.store, now: "2026-12-02T06:00:00Z").run(
            "token", "import", "--name", "brief", "--token-file", replicas.path("brief.token"), "--expires", "1h").checked("token import brief")
        for name in ["taken", "old"] { _ = try b.run("token", "create", "--name", name).checked("token create \(name)") }
        _ = try b.run("token", "revoke", "old").checked("token revoke old")
        // The id of ios-app with another secret: the first secret character changed.
        let secret = token.suffix(43)
        try replicas.write(String(token.dropLast(43)) + (secret.first == "A" ? "B" : "A") + String(secret.dropFirst()), to: "other-secret.token")
        try replicas.write("slt_0123\n", to: "malformed.token")
        try replicas.write("\n", to: "empty.token")
        try replicas.write(#"{"name":"fresh"}"#, to: "nameless.json")
        try replicas.write(try String(contentsOfFile: replicas.path("fresh.token"), encoding: .utf8) + "token:   \(fresh)\n", to: "two.token")
        let id = token.dropFirst(4).prefix(16)
        let refused = "not a token this store takes, so nothing was written: "
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["--name", "x", "--token-file", "missing.token"], 5,
             "--token-file: cannot read DIR/missing.token; give a file holding the token that 'sharelog token create' printed"),
            (["--name", "x", "--token-file", "malformed.token"], 5, "--token-file: DIR/malformed.token holds no token: not a token: 8 characters, not 64; \(Self.form)"),
            (["--name", "x", "--token-file", "empty.token"], 5,
             "--token-file: DIR/empty.token is empty; give a file holding the token that 'sharelog token create' printed"),
            (["--name", "x", "--token-file", "nameless.json"], 5,
             "--token-file: DIR/nameless.json holds JSON without a \"token\" string, as 'sharelog token create --json' prints"),
            (["--name", "x", "--token-file", "two.token"], 5, "--token-file: DIR/two.token has 2 lines that start 'token:', not one; give one token"),
            (["--name", "taken", "--token-file", "fresh.token"], 5,
             "a token named 'taken' already exists (revoked tokens keep their names), so nothing was written; choose another name"),
            (["--name", "old", "--token-file", "fresh.token"], 5,
             "a token named 'old' already exists (revoked tokens keep their names), so nothing was written; choose another name"),
            (["--name", "ios-app-2", "--token-file", "ios-app.token"], 5,
             refused + "this token is installed here as 'ios-app', and a token has one name; import it as 'ios-app', or not at all"),
            (["--name", "ios-app", "--token-file", "other-secret.token"], 5,
             refused + "a token with the id \(id) is stored here as 'ios-app' with another secret, so it is another token; "
                + "check that the file holds the token you mean"),
            (["--name", "fresh", "--token-file", "other-secret.token"], 5,
             refused + "a token with the id \(id) is stored here as 'ios-app' with another secret, so it is another token; "
                + "check that the file holds the token you mean"),
            (["--name", "retired", "--token-file", "retired.token"], 5,
             refused + "this token is installed here as 'retired' but was revoked at 2026-12-02T09:00:00.000Z, and a revoked token stays revoked; "
                + "make a new one with 'sharelog token create'"),
            (["--name", "brief", "--token-file", "brief.token"], 5,
             refused + "this token is installed here as 'brief' but expired at 2026-12-02T07:00:00.000Z, and an installed token keeps its expiry; "
                + "make a new one with 'sharelog token create'"),
            (["--name", "fresh", "--token-file", "fresh.token", "--scope", "upload,write"], 5,
             "--scope 'upload,write' is not a comma-separated list of upload, revoke and read, each at most once"),
            (["--name", "fresh", "--token-file", "fresh.token", "--expires", "0d"], 5, "--expires '0d' is not a duration after now, like 30d, or never"),
            (["--name", "bad name", "--token-file", "fresh.token"], 5,
             "--name 'bad name' is not 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'"),
            (["--name", "fresh"], 2, "token import needs --token-file F, a file holding the token; see 'sharelog help'"),
            (["--token-file", "fresh.token"], 2, "token import needs --name NAME; see 'sharelog help'"),
        ]
        let secrets = [token, retired, brief, fresh].map { String($0.suffix(43)) } + [String(secret.dropFirst())]
        for (arguments, status, message) in cases {
            let before = try StoreFiles(of: b.store)
            let given = arguments.enumerated().map { $0.offset > 0 && arguments[$0.offset - 1] == "--token-file" ? replicas.path($0.element) : $0.element }
            let result = try b.run(arguments: ["token", "import"] + given)
            let expected = message.replacingOccurrences(of: "DIR/", with: replicas.directory.path + "/")
            #expect(result.status == status, "\(arguments)")
            #expect(result.error == "sharelog: \(expected)\n", "\(arguments)")
            #expect(result.text == "", "\(arguments)")
            #expect(secrets.allSatisfy { !result.error.contains($0) }, "\(arguments): \(result.error)")
            #expect(try StoreFiles(of: b.store) == before, "\(arguments)")
        }
        #expect(try b.run("token", "list", "--json").jsonArray?.compactMap { $0["name"] as? String } == ["brief", "ios-app", "old", "retired", "taken"])
    }
}
