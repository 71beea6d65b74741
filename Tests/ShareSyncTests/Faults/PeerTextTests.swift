import Dispatch
import Foundation
import Testing
@testable import ShareSync
import ShareLog
import SharePrimitives

/// What a peer says reaches the server's log quoted, escaped and cut, and
/// the log never makes the server wait (docs/SYNC.md "Security model").
@Suite struct PeerTextTests {
    @Test func linesEscapesAndQuotesCannotPassForTheLogsOwn() {
        let planted = "bye\nsharelog: session forged: ended well;\u{1B}[2J \"q\" \\ \u{202E}txt"
        #expect(PeerText.quoted(planted) == #""bye\nsharelog: session forged: ended well;\u{1B}[2J \"q\" \\ \u{202E}txt""#)
        #expect(PeerText.quoted("plain words, é and 名") == #""plain words, é and 名""#)
    }

    @Test func aLongTextIsCutAfter300BytesWithTheRestCounted() {
        let quoted = PeerText.quoted(String(repeating: "A", count: 4_000))
        #expect(quoted == "\"" + String(repeating: "A", count: 300) + "\"… (3700 more bytes)")
        // A character is never split: 150 two-byte letters fit, the 151st does not.
        #expect(PeerText.quoted(String(repeating: "é", count: 151)) == "\"" + String(repeating: "é", count: 150) + "\"… (2 more bytes)")
    }

    @Test func aLogWhoseReaderIsStuckDropsLinesAndCountsThemInsteadOfBlocking() {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let written = Written()
        let log = LogQueue(capacity: 10) { record, _ in
            written.append(record.message)
            if record.message == "first" {
                entered.signal()
                release.wait()
            }
        }
        log.append(LogRecord(.info, "test.line", "first"))
        #expect(entered.wait(timeout: .now() + 30) == .success)
        // The writer is stuck on "first": 10 lines wait, 90 are dropped,
        // and appending never waits for it.
        for index in 0..<100 { log.append(LogRecord(.info, "test.line", "line \(index)")) }
        #expect(log.dropped == 90)
        release.signal()
        log.close()
        #expect(written.lines == ["first", "90 log lines were dropped: the log's reader fell behind"] + (0..<10).map { "line \($0)" })
    }

    /// Lines a test's writer saw, in order.
    final class Written: Sendable {
        private let all = Locked<[String]>([])
        func append(_ line: String) { all.withLock { $0.append(line) } }
        var lines: [String] { all.withLock { $0 } }
    }
}
