import Foundation
import Testing
import TestSupport
import TestTraits

/// Every ```console block in README.md and docs/*.md runs as written and
/// prints what it shows (`ConsoleSession`, `ConsoleMatch`): a newcomer who
/// types a page's commands gets the page's output (issue "The CLI keeps
/// every promise its docs make", "Tested docs").
@Suite(.serialized, .hangDeadline) struct DocsConsoleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and every page in docs/, with the console blocks each holds.
    static func pages() throws -> [(page: String, blocks: [ConsoleBlock])] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        return try (["README.md"] + docs).map { page in
            let text = try String(contentsOf: repository.appendingPathComponent(page), encoding: .utf8)
            return (page, ConsoleBlock.blocks(in: text, page: page))
        }
    }

    @Test func everyConsoleBlockRunsAndPrintsWhatItShows() throws {
        var ran = 0
        for (page, blocks) in try Self.pages() where !blocks.isEmpty {
            let session = try ConsoleSession()
            defer { session.stop() }
            for block in blocks {
                guard block.notRun == nil else { continue }
                let failures = try session.run(block)
                #expect(failures.isEmpty, "\(failures.joined(separator: "\n\n"))")
                ran += 1
            }
            print("DocsConsoleTests: \(page): ran \(blocks.count { $0.notRun == nil }) of \(blocks.count) console blocks")
        }
        #expect(ran >= 3, "the README's CLI session and replication blocks at least")
    }

    /// Few blocks may be left out, each saying why.
    @Test func blocksLeftOutAreFewAndSayWhy() throws {
        let all = try Self.pages().flatMap(\.blocks)
        let leftOut = all.filter { $0.notRun != nil }
        #expect(leftOut.allSatisfy { !$0.notRun!.isEmpty })
        #expect(leftOut.count * 3 <= all.count, "left out: \(leftOut.map { "\($0): \($0.notRun!)" })")
    }

    /// How many unused bytes a compaction zeroes depends on how many bytes
    /// of the freed ids happen to be zero, so only that count may differ;
    /// its pages may not.
    @Test func aCompactionsUnusedByteCountMayDifferFromThePage() {
        var match = ConsoleMatch(home: "/root")
        let shown = ["redacted 2 log entries; zeroed 16 free pages and 185 unused bytes"]
        #expect(match.compare(expected: shown, actual: "redacted 2 log entries; zeroed 16 free pages and 184 unused bytes\n") == nil)
        #expect(match.compare(expected: shown, actual: "redacted 2 log entries; zeroed 17 free pages and 185 unused bytes\n") != nil)
    }

    /// The reader itself, on a block written here.
    @Test func aBlockIsReadAsCommandsAndWhatEachPrints() {
        let page = """
            text
            <!-- console: not run: needs two machines -->
            ```console
            $ sharelog init
            created store ./sharelog-data
            $ sharelog http --listen tcp:0.0.0.0:8443 \\
                --cert c.pem
            sharelog: http: serving
            ```
            ```console
            $ true
            ```
            ```console
            $ cat > card.vcf <<'EOF'
            BEGIN:VCARD
            EOF
            $ cat card.vcf
            BEGIN:VCARD
            ```
            """
        let blocks = ConsoleBlock.blocks(in: page, page: "page.md")
        #expect(blocks.count == 3)
        #expect(blocks[0].notRun == "needs two machines")
        #expect(blocks[0].steps.map(\.command) == ["sharelog init", "sharelog http --listen tcp:0.0.0.0:8443 \\\n    --cert c.pem"])
        #expect(blocks[0].steps.map(\.expected) == [["created store ./sharelog-data"], ["sharelog: http: serving"]])
        #expect(blocks[1].notRun == nil && blocks[1].steps.map(\.expected) == [[]])
        // A here-document's lines are the command's, not what it prints.
        #expect(blocks[2].steps.map(\.command) == ["cat > card.vcf <<'EOF'\nBEGIN:VCARD\nEOF", "cat card.vcf"])
        #expect(blocks[2].steps.map(\.expected) == [[], ["BEGIN:VCARD"]])
    }

    /// The README's first session gives every time it shows (`--now`), and
    /// writes the card it shares: a reader who types it on another day,
    /// in an empty folder, gets what it shows (here: with the clock years
    /// after the page's).
    @Test func theReadmesFirstSessionPrintsWhatItShowsOnAnyDay() throws {
        let readme = try #require(try Self.pages().first { $0.page == "README.md" })
        let first = try #require(readme.blocks.first)
        for now in ["2031-06-15T08:00:00Z", "2024-02-29T23:59:59Z"] {
            let session = try ConsoleSession(now: now)
            defer { session.stop() }
            let failures = try session.run(first)
            #expect(failures.isEmpty, "with the clock at \(now):\n\(failures.joined(separator: "\n\n"))")
        }
    }
}
