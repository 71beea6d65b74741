import Foundation
import ShareLog
import Testing
import TestTraits

/// A log record written as text and as one JSON object per line
/// (docs/OPERATIONS.md "Logs"), each written out by hand here.
@Suite(.hangDeadline) struct LogFormatTests {
    static let time = Timestamp(iso8601: "2026-12-01T10:00:00.25Z")!
    static let record = LogRecord(
        .warning, "sync.session.ended", "session x: closed: the peer said \"bye\\now\"\nand more",
        [("eventsSent", 3), ("fraction", .number(0.5)), ("tookOver", true), ("peer", "tab\there\u{1}\u{2028}")])

    @Test func textIsTheMessageAfterTheToolsName() {
        #expect(LogFormat.text.line(Self.record, at: Self.time) == "sharelog: session x: closed: the peer said \"bye\\now\"\nand more")
    }

    @Test func jsonIsOneObjectWithTimeLevelEventAndMessageFirstAndEverythingEscaped() {
        #expect(LogFormat.json.line(Self.record, at: Self.time) == #"""
            {"time":"2026-12-01T10:00:00.250Z","level":"warning","event":"sync.session.ended","message":"session x: closed: the peer said \"bye\\now\"\nand more","eventsSent":3,"fraction":0.5,"tookOver":true,"peer":"tab\there\u0001\u2028"}
            """#)
    }

    /// Whatever a peer's text holds, a JSON line stays one line that a
    /// JSON parser reads back to the same text.
    @Test func anyTextStaysOneLineAndReadsBackTheSame() throws {
        let hostile = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }.joined() + "\u{2028}\u{2029}é✓"
        let line = LogFormat.json.line(LogRecord(.info, "test", hostile, [("field", .text(hostile))]), at: Self.time)
        #expect(!line.contains("\n") && !line.contains("\r"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == hostile)
        #expect(object["field"] as? String == hostile)
    }
}
