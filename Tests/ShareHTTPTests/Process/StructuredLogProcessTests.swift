import Foundation
import Testing
import TestSupport
import TestTraits

/// `--log-format` on real processes (docs/OPERATIONS.md "Logs"): in JSON,
/// every line a server writes is one object with its time, level, event
/// and message, and the events carry their figures as fields; JSON is the
/// default where standard error is not a terminal.
@Suite(.hangDeadline, .ownThread) struct StructuredLogProcessTests {
    /// Each line of `text` as a JSON object; a line that is not one fails
    /// the test.
    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").map { line in
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
            return object ?? [:]
        }
    }

    /// Every object has a UTC time to the millisecond, a level, an event and a message.
    static func expectEnvelope(_ objects: [[String: Any]]) {
        for object in objects {
            let time = object["time"] as? String ?? ""
            #expect(time.count == 24 && time.hasSuffix("Z") && ISO8601DateFormatter.withMilliseconds.date(from: time) != nil, "time: \(object)")
            #expect(["info", "warning", "error"].contains(object["level"] as? String ?? ""), "level: \(object)")
            #expect(!(object["event"] as? String ?? "").isEmpty && object["message"] is String, "\(object)")
        }
    }

    @Test func aServersJSONLogNamesEveryEventAndGivesASessionsFigures() throws {
        let fixture = try ProcessStore("jsonlog")
        _ = try fixture.share(ProcessCards.plain)
        let socket = fixture.directory.appending("s.sock")
        let server = try WatchedProcess(
            fixture.cli(at: ProcessClock.serving), ["--log-format", "json", "serve", "--listen", "unix:\(socket)", "--maintenance", "off"],
            what: "sharelog serve --log-format json", readiness: "logs sync.serving", timeout: .seconds(30)) { $0.contains("\"event\":\"sync.serving\"") }
        let puller = SharelogCLI(store: fixture.directory.appending("puller"), now: ProcessClock.serving)
        _ = try puller.run("sync", "--connect", "unix:\(socket)", "--pull").checked("sharelog sync --pull")
        try Deadline.block(until: "the server logs the session's end") {
            server.pump()
            return server.lines.contains { $0.contains("\"event\":\"sync.session.ended\"") }
        }
        let stopped = try server.stop(timeout: .seconds(20))
        #expect(stopped.status == 0)
        let objects = Self.objects(stopped.error)
        Self.expectEnvelope(objects)
        #expect(objects.map { $0["event"] as? String ?? "" } == ["sync.serving", "sync.session.ended", "signal.stop", "sync.stopping", "sync.stopped"])
        let session = try #require(objects.first { $0["event"] as? String == "sync.session.ended" })
        #expect(session["role"] as? String == "main")
        #expect(session["outcome"] as? String == "ok")
        #expect(session["directions"] as? String == "pull")
        #expect(session["eventsSent"] as? Int == 1)
        #expect(session["eventsReceived"] as? Int == 0)
        #expect((session["message"] as? String ?? "").hasPrefix("session unix:"))
    }

    @Test func theGatewaysAccessLogInJSONCarriesTheLinesParts() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let gateway = try WatchedProcess(
            fixture.cli(at: ProcessClock.serving), ["--log-format", "json", "http", "--listen", "tcp:127.0.0.1:0", "--maintenance", "off"] + ProcessApps.arguments,
            what: "sharelog http --log-format json", readiness: "logs http.serving", timeout: .seconds(30)) { $0.contains("\"event\":\"http.serving\"") }
        let serving = try #require(Self.objects(gateway.lines.joined(separator: "\n")).first { $0["event"] as? String == "http.serving" })
        let url = try #require(serving["url"] as? String)
        #expect(try CurlClient.fetch("\(url)/appclip?id=\(id)").status == 200)
        try Deadline.block(until: "the gateway logs the request") {
            gateway.pump()
            return gateway.lines.contains { $0.contains("\"event\":\"http.request\"") }
        }
        let objects = Self.objects(try gateway.stop(timeout: .seconds(20)).error)
        Self.expectEnvelope(objects)
        let request = try #require(objects.first { $0["event"] as? String == "http.request" })
        #expect(request["method"] as? String == "GET")
        #expect(request["route"] as? String == "/appclip")
        #expect(request["status"] as? Int == 200)
        #expect(request["level"] as? String == "info")
        #expect((request["message"] as? String ?? "").hasPrefix("http method=GET route=/appclip status=200 bytes="))
        #expect(objects.last?["event"] as? String == "http.stopped")
    }

    /// With no option and no variable, a standard error that is a pipe
    /// gets JSON; the variable and the option choose; a wrong word is a
    /// usage error (exit 2).
    @Test func jsonIsTheDefaultOffATerminalAndTheVariableAndTheOptionChoose() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let photo = fixture.directory.appending("photo.jpg")
        func run(_ environment: [String: String], _ extra: [String] = []) throws -> CLIResult {
            let arguments = ["--store", fixture.store, "--now", ProcessClock.serving] + extra + ["share", "get", id, "--photo", photo]
            return CLIResult(try Subprocess.run(SharelogCLI.executable, arguments, environment: environment, timeout: .seconds(30)))
        }
        let byDefault = try run([:])
        #expect(byDefault.status == 0)
        let warning = Self.objects(byDefault.error)
        #expect(warning.count == 1)
        #expect(warning.first?["event"] as? String == "share.photo.missing")
        #expect(warning.first?["level"] as? String == "warning")
        #expect(try run(["SHARELOG_LOG_FORMAT": "text"]).error == "sharelog: the card has no readable photo; nothing written to \(photo)\n")
        #expect(try run(["SHARELOG_LOG_FORMAT": "json"], ["--log-format", "text"]).error.hasPrefix("sharelog: the card has no readable photo"))
        let wrongOption = try run([:], ["--log-format", "yaml"])
        #expect(wrongOption.status == 2)
        #expect(wrongOption.error.contains("--log-format is json or text, not 'yaml'"))
        let wrongVariable = try run(["SHARELOG_LOG_FORMAT": "xml"])
        #expect(wrongVariable.status == 2)
        #expect(wrongVariable.error.contains("SHARELOG_LOG_FORMAT is json or text, not 'xml'"))
    }
}

extension ISO8601DateFormatter {
    /// `2026-12-01T10:00:00.250Z`.
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
